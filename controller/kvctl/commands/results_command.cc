// kvctl results JOB|DIR [--output table|json|csv]: the job's results per scenario (from the
// controller, or from a kvctl run --out folder), in the same tier comparison table as `kvctl run`
// prints (results_table.h) with the validity verdicts, or every field as JSON / CSV.
// kvctl results JOB --requests [--output jsonl|csv]: every request (request_export.h).

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/json/proto_json.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/job_argument.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/capacity_printer.h"
#include "controller/kvctl/print/comparison_printer.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/kvctl/print/result_columns.h"
#include "controller/kvctl/print/results_table.h"
#include "controller/kvctl/request_export.h"
#include "controller/kvctl/verdict_gate.h"
#include "controller/results/validity.h"

namespace kvbench::kvctl {
namespace {

struct ResultsFlags {
  std::string job_id;
  bool requests = false;
  VerdictGate gate = VerdictGate::kNoneInvalid;
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

// An array of {scenario_id, tier, concurrency, agent_id, comparison_group, verdict, state, result}
// (verdict: its comparison group's, as job.json spells it, null before there is one; result only
// when it has one; error when there is one); for a capacity search's job, {"capacity": the search's
// answer (the headline first), "scenarios": that array}.
void PrintJson(const v1::Job& job, std::ostream& out) {
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    nlohmann::ordered_json row;
    row["scenario_id"] = status.scenario().scenario_id();
    row["tier"] = v1::Tier_Name(status.scenario().tier());
    row["concurrency"] = status.scenario().concurrency();
    row["agent_id"] = status.agent_id();
    row["comparison_group"] = results::ComparisonGroupOf(status.scenario());
    const std::string verdict = VerdictOfGroup(job, results::ComparisonGroupOf(status.scenario()));
    row["verdict"] =
        verdict.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(verdict);
    row["state"] = v1::ScenarioState_Name(status.state());
    if (!status.error().empty()) row["error"] = status.error();
    if (status.has_result())
      row["result"] = nlohmann::ordered_json::parse(ProtoToJson(status.result()));
    json.push_back(std::move(row));
  }
  if (HasCapacity(job.capacity())) {
    nlohmann::ordered_json both;
    both["capacity"] = CapacityJson(job.capacity());
    both["scenarios"] = std::move(json);
    json = std::move(both);
  }
  out << json.dump(2) << "\n";
}

// --requests: every request of the job, from the controller.
absl::Status ShowRequests(const ResultsFlags& flags, KvctlContext* context) {
  if (flags.format == OutputFormat::kTable || flags.format == OutputFormat::kJson) {
    return absl::InvalidArgumentError(
        "--requests prints one row per request: --output jsonl (the default) or csv");
  }
  std::error_code error;
  if (std::filesystem::is_directory(flags.job_id, error)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--requests reads a job's records from the controller; a kvctl run folder has them in "
        "each scenario's requests.jsonl under ",
        flags.job_id));
  }
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
      ConnectController(flags.connection, *context);
  if (!client.ok()) return client.status();
  int64_t rows = 0;
  return ExportRequests(**client, flags.job_id, flags.format, *context->out, &rows);
}

absl::Status ShowResults(const ResultsFlags& flags, KvctlContext* context) {
  if (flags.requests) return ShowRequests(flags, context);
  if (flags.format == OutputFormat::kJsonl) {
    return absl::InvalidArgumentError("--output jsonl is for --requests");
  }
  absl::StatusOr<v1::Job> job = FetchJob(flags.job_id, flags.connection, *context);
  if (!job.ok()) return job.status();
  // --require-valid: every format prints, then the exit code says whether all were valid.
  const absl::Status verdicts = flags.gate == VerdictGate::kAllValid
                                    ? InvalidComparisonsStatus(*job, flags.gate)
                                    : absl::OkStatus();
  if (flags.format == OutputFormat::kJson) {
    PrintJson(*job, *context->out);
    return verdicts;
  }
  if (flags.format == OutputFormat::kCsv) {
    PrintResultsFullCsv(*job, *context->out);
    return verdicts;
  }
  std::vector<ResultsRow> rows;
  for (const v1::ScenarioStatus& status : job->scenarios()) {
    rows.push_back(ResultsRowFromScenarioStatus(status));
  }
  std::ostream& out = *context->out;
  out << "job " << job->job_id() << " (" << job->spec().name()
      << "): " << JobStateName(job->state()) << "\n\n";
  PrintCapacity(job->capacity(), out);
  PrintResultsTable(rows, out);
  if (job->validity_size() > 0) out << "\n";
  for (const v1::Validity& validity : job->validity()) PrintVerdict(validity, out);
  return verdicts;
}

}  // namespace

void AddResultsCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand(
      "results", "Show a job's results: the tier comparison table (as kvctl run), JSON or CSV");
  auto flags = std::make_shared<ResultsFlags>();
  command->add_option("job", flags->job_id, "Job id at the controller, or a kvctl run --out folder")
      ->required();
  command->add_flag("--requests", flags->requests,
                    "Every request of the job (from the controller): --output jsonl or csv");
  AddRequireValidFlag(command, &flags->gate);
  AddOutputOption(
      command, &flags->format,
      {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv, OutputFormat::kJsonl});
  AddConnectionFlags(command, &flags->connection);
  command->callback([context, flags] {
    // With --requests and no --output, JSON lines.
    if (flags->requests && flags->format == OutputFormat::kTable) {
      flags->format = OutputFormat::kJsonl;
    }
    context->action = [context, flags] { return ShowResults(*flags, context); };
  });
}

}  // namespace kvbench::kvctl
