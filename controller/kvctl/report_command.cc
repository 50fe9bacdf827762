// kvctl report JOB|DIR --html FILE: the job as one self-contained HTML file (controller/report):
// parameters, validity verdicts, charts and tables. Written atomically (a temp file renamed);
// prints the file's path.

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/job_argument.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/report/html_report.h"

namespace kvbench::kvctl {
namespace {

struct ReportFlags {
  std::string job;
  std::string html;
  ConnectionFlags connection;
};

// `content` to `path` through `path`.tmp and a rename: readers never see half a report.
absl::Status WriteAtomically(const std::string& path, const std::string& content) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) return absl::FailedPreconditionError(absl::StrCat("cannot write ", temp));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return absl::FailedPreconditionError(absl::StrCat("cannot rename ", temp, " to ", path));
  }
  return absl::OkStatus();
}

absl::Status Report(const ReportFlags& flags, KvctlContext* context) {
  absl::StatusOr<v1::Job> job = FetchJob(flags.job, flags.connection, *context);
  if (!job.ok()) return job.status();
  const std::vector<v1::Validity> validity(job->validity().begin(), job->validity().end());
  absl::Status written = WriteAtomically(flags.html, report::RenderHtmlReport(*job, validity));
  if (!written.ok()) return written;
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
  AddConnectionFlags(command, &flags->connection);
  command->callback(
      [context, flags] { context->action = [context, flags] { return Report(*flags, context); }; });
}

}  // namespace kvbench::kvctl
