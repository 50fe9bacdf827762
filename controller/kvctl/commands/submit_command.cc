// kvctl submit SPEC.json [--watch] [--request-id ID]: checks the spec here first (every field
// error before any network), submits it to the controller and prints the job id and its
// scenario matrix; --watch then follows the job as `kvctl watch` does.

#include <signal.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/cli/stop_signals.h"
#include "common/json/proto_json.h"
#include "controller/client/job_plan.h"
#include "controller/kvctl/commands/watch_command.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/kvctl/print/table_printer.h"
#include "controller/spec/job_spec_loader.h"

namespace kvbench::kvctl {
namespace {

struct SubmitFlags {
  std::string spec_path;
  std::vector<std::string> sets;  // --set KEY=VALUE
  std::string request_id;
  bool watch = false;
  WatchOptions watch_options;
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

void PrintSubmitted(const v1::SubmitJobResponse& response, std::ostream& out) {
  out << "job " << response.job_id() << ": " << response.scenarios_size() << " scenarios\n\n";
  TablePrinter table({"SCENARIO", "TIER", "CONCURRENCY", "SESSIONS", "GROUP"});
  for (const v1::Scenario& scenario : response.scenarios()) {
    table.AddRow({scenario.scenario_id(), v1::Tier_Name(scenario.tier()),
                  absl::StrCat(scenario.concurrency()), absl::StrCat(scenario.sessions()),
                  scenario.comparison_group()});
  }
  table.Print(out);
  out.flush();
}

absl::Status Submit(const SubmitFlags& flags, KvctlContext* context) {
  // The whole check first: a bad spec never reaches the network.
  absl::StatusOr<client::JobPlan> plan = client::PlanJobFile(flags.spec_path, flags.sets);
  if (!plan.ok()) return plan.status();
  v1::SubmitJobRequest request;
  // The file's spec as written (with --set): the controller fills in its own defaults.
  absl::StatusOr<v1::JobSpec> written = spec::LoadJobSpecFileAsWritten(flags.spec_path, flags.sets);
  if (!written.ok()) return written.status();
  *request.mutable_spec() = *std::move(written);
  request.set_request_id(flags.request_id);
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
      ConnectController(flags.connection, *context);
  if (!client.ok()) return client.status();
  absl::StatusOr<v1::SubmitJobResponse> response = (*client)->SubmitJob(request);
  if (!response.ok()) return response.status();
  if (flags.format == OutputFormat::kJson) {
    *context->out << ProtoToJson(*response, /*pretty=*/true) << "\n";
  } else {
    PrintSubmitted(*response, *context->out);
  }
  if (!flags.watch) return absl::OkStatus();
  *context->out << "\n";
  return WatchJobToEnd(**client, response->job_id(), context, StopOnSignals({SIGINT, SIGTERM}),
                       flags.watch_options);
}

}  // namespace

void AddSubmitCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand(
      "submit", "Validate a job spec and submit it to the controller (prints the job id)");
  auto flags = std::make_shared<SubmitFlags>();
  command->add_option("spec", flags->spec_path, "Job spec JSON file")->required();
  AddSpecSetOption(command, &flags->sets);
  command->add_flag("--watch", flags->watch, "Then follow the job until it ends (as kvctl watch)");
  AddRequireValidFlag(command, &flags->watch_options.gate);
  command->add_option("--request-id", flags->request_id,
                      "Idempotency key: a retried submit with the same key returns the same job");
  AddOutputOption(command, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  AddConnectionFlags(command, &flags->connection);
  command->callback(
      [context, flags] { context->action = [context, flags] { return Submit(*flags, context); }; });
}

}  // namespace kvbench::kvctl
