// kvctl report JOB|DIR --html FILE [--baseline JOB|DIR]: the job as one self-contained HTML file
// (controller/report): parameters, validity verdicts, charts and tables, and with a baseline the
// change against it (kvctl diff's). Written atomically (a temp file renamed); prints the path.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/files/atomic_file.h"
#include "common/status/status_macros.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/job_argument.h"
#include "controller/kvctl/job_comparison.h"
#include "controller/kvctl/job_requests.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/report/html_report.h"

namespace kvbench::kvctl {
namespace {

struct ReportFlags {
  std::string job;
  std::string html;
  std::string baseline;
  regression::DiffOptions diff_options;
  ConnectionFlags connection;
};

absl::Status Report(const ReportFlags& flags, KvctlContext* context) {
  std::string html;
  if (flags.baseline.empty()) {
    KV_ASSIGN_OR_RETURN(v1::Job job, FetchJob(flags.job, flags.connection, *context));
    const std::vector<results::ComparisonGroup> comparison =
        JobComparison(job, flags.job, flags.connection, *context);
    html = report::RenderHtmlReport(job, {job.validity().begin(), job.validity().end()}, nullptr,
                                    "", &comparison);
  } else {
    // The job with its request rows (FetchJobRequests fetches the job itself once).
    KV_ASSIGN_OR_RETURN(regression::JobRequests before,
                        FetchJobRequests(flags.baseline, flags.connection, *context));
    KV_ASSIGN_OR_RETURN(regression::JobRequests after,
                        FetchJobRequests(flags.job, flags.connection, *context));
    const regression::JobDiff diff = regression::DiffJobs({before}, {after}, flags.diff_options);
    const std::vector<results::ComparisonGroup> comparison =
        JobComparisonOfRows(after.job, after.rows);
    html = report::RenderHtmlReport(after.job,
                                    {after.job.validity().begin(), after.job.validity().end()},
                                    &diff, before.job.job_id(), &comparison);
  }
  KV_RETURN_IF_ERROR(WriteFileAtomically(flags.html, html));
  *context->out << flags.html << "\n";
  return absl::OkStatus();
}

}  // namespace

void AddReportCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand(
      "report", "Write a job's results as one self-contained HTML file (charts, verdicts, tables)");
  auto flags = std::make_shared<ReportFlags>();
  command->add_option("job", flags->job, "Job id at the controller, or a kvctl run --out folder")
      ->required();
  command->add_option("--html", flags->html, "The HTML file to write")->required();
  command->add_option("--baseline", flags->baseline,
                      "A job id or run folder: add the change against it (as kvctl diff, default "
                      "band and seed)");
  AddConnectionFlags(command, &flags->connection);
  command->callback(
      [context, flags] { context->action = [context, flags] { return Report(*flags, context); }; });
}

}  // namespace kvbench::kvctl
