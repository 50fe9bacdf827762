// kvctl export JOB|DIR --format llmd-br-0.2.1 [--scenario ID] [--out FILE | --out-dir DIR]:
// the job's results in another tool's format. llmd-br-0.2.1: one llm-d Benchmark Report v0.2.1
// per scenario that has a result (export/llmd_report.h). To stdout or --out FILE: with --scenario
// its report as one JSON object, else a JSON array of reports (one element for a job of one
// scenario: a script reads the same shape whatever the job's size); --out-dir DIR writes one
// file per report, benchmark_report_v0.2.1_<job>_<scenario>.json, and prints each path.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/files/atomic_file.h"
#include "common/status/status_macros.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/export/llmd_report.h"
#include "controller/kvctl/export/llmd_time_series.h"
#include "controller/kvctl/job_argument.h"
#include "controller/kvctl/kvctl_command.h"

namespace kvbench::kvctl {
namespace {

struct ExportFlags {
  std::string job;
  std::string format;
  std::string scenario;
  std::string out;
  std::string out_dir;
  ConnectionFlags connection;
};

struct ExportedReport {
  std::string scenario_id;
  nlohmann::ordered_json report;
};

// The reports: of --scenario only, else of every scenario with a result (those without are
// named on stderr, and so, in one line, are those whose series could not be dated).
absl::StatusOr<std::vector<ExportedReport>> ExportReports(const v1::Job& job,
                                                          const ExportFlags& flags,
                                                          KvctlContext* context) {
  std::vector<ExportedReport> reports;
  std::vector<std::string> undated;
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    const std::string& id = status.scenario().scenario_id();
    if (!flags.scenario.empty() && id != flags.scenario) continue;
    if (!status.has_result() && flags.scenario.empty()) {
      *context->err << "export: skipped " << id << ": no result ("
                    << v1::ScenarioState_Name(status.state()) << ")\n";
      continue;
    }
    KV_ASSIGN_OR_RETURN(nlohmann::ordered_json report, LlmdBenchmarkReport(job, status));
    if (LlmdSeriesUndated(status.result())) undated.push_back(id);
    reports.push_back({id, std::move(report)});
  }
  if (!undated.empty()) {
    *context->err << "export: time series left out of " << absl::StrJoin(undated, ", ")
                  << ": result.json has no replay_start_unix_ms (an older agent's), so its "
                     "series cannot be dated\n";
  }
  if (!flags.scenario.empty() && reports.empty()) {
    return absl::NotFoundError(
        absl::StrCat("job ", job.job_id(), " has no scenario ", flags.scenario));
  }
  if (reports.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job.job_id(), " has no scenario with a result to export"));
  }
  return reports;
}

absl::Status WriteReportFiles(const v1::Job& job, const std::vector<ExportedReport>& reports,
                              const std::string& dir, KvctlContext* context) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", dir, ": ", error.message()));
  }
  for (const ExportedReport& exported : reports) {
    const std::string path = (std::filesystem::path(dir) /
                              absl::StrCat("benchmark_report_v", kLlmdReportVersion, "_",
                                           job.job_id(), "_", exported.scenario_id, ".json"))
                                 .string();
    KV_RETURN_IF_ERROR(WriteFileAtomically(path, exported.report.dump(2) + "\n"));
    *context->out << path << "\n";
  }
  return absl::OkStatus();
}

absl::Status Export(const ExportFlags& flags, KvctlContext* context) {
  if (flags.format != kLlmdReportFormat) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown --format '", flags.format, "': the formats are ", kLlmdReportFormat));
  }
  KV_ASSIGN_OR_RETURN(v1::Job job, FetchJob(flags.job, flags.connection, *context));
  KV_ASSIGN_OR_RETURN(std::vector<ExportedReport> reports, ExportReports(job, flags, context));
  if (!flags.out_dir.empty()) return WriteReportFiles(job, reports, flags.out_dir, context);
  nlohmann::ordered_json document;
  if (!flags.scenario.empty()) {
    document = std::move(reports.front().report);
  } else {
    document = nlohmann::ordered_json::array();
    for (ExportedReport& exported : reports) document.push_back(std::move(exported.report));
  }
  const std::string text = document.dump(2) + "\n";
  if (flags.out.empty()) {
    *context->out << text;
    return absl::OkStatus();
  }
  KV_RETURN_IF_ERROR(WriteFileAtomically(flags.out, text));
  *context->out << flags.out << "\n";
  return absl::OkStatus();
}

}  // namespace

void AddExportCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand(
      "export", "Export a job's results in another tool's format (llm-d Benchmark Report v0.2.1)");
  auto flags = std::make_shared<ExportFlags>();
  command->add_option("job", flags->job, "Job id at the controller, or a kvctl run --out folder")
      ->required();
  command
      ->add_option("--format", flags->format,
                   absl::StrCat("The format: ", kLlmdReportFormat,
                                " (one llm-d Benchmark Report v0.2.1 per scenario)"))
      ->required();
  command->add_option("--scenario", flags->scenario, "Export this scenario only (its id)");
  CLI::Option* out = command->add_option(
      "--out", flags->out,
      "Write to FILE (with --scenario: the report, an object; else an array of reports)");
  command
      ->add_option("--out-dir", flags->out_dir,
                   "Write one file per report into DIR: benchmark_report_v0.2.1_<job>_<scenario>"
                   ".json")
      ->excludes(out);
  AddConnectionFlags(command, &flags->connection);
  command->callback(
      [context, flags] { context->action = [context, flags] { return Export(*flags, context); }; });
}

}  // namespace kvbench::kvctl
