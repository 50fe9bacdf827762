// kvctl diff A B [--baseline-also A2]...: per matching scenario (tier, concurrency, agent class) of
// two jobs, the change of each regression metric with a bootstrap interval over virtual users and
// a verdict. A and B are controller job ids or local run folders; more runs of A's
// spec pooled into the baseline show how whole runs vary, which a verdict needs (3 runs at least:
// regression::kMinRunsForVerdict). Exits 9 when any metric regressed.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/files/atomic_file.h"
#include "common/status/exit_code.h"
#include "common/status/status_macros.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/job_requests.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/diff_printer.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/regression/job_diff_json.h"
#include "controller/report/html_report.h"

namespace kvbench::kvctl {
namespace {

struct DiffFlags {
  std::string before;
  std::vector<std::string> before_also;
  std::string after;
  regression::DiffOptions options;
  OutputFormat format = OutputFormat::kTable;
  std::string html;
  ConnectionFlags connection;
};

std::vector<std::string> Concat(const std::string& first, const std::vector<std::string>& rest) {
  std::vector<std::string> all = {first};
  all.insert(all.end(), rest.begin(), rest.end());
  return all;
}

absl::Status Diff(const DiffFlags& flags, KvctlContext* context) {
  std::vector<regression::JobRequests> baseline;
  for (const std::string& job : Concat(flags.before, flags.before_also)) {
    KV_ASSIGN_OR_RETURN(regression::JobRequests runs,
                        FetchJobRequests(job, flags.connection, *context));
    baseline.push_back(std::move(runs));
  }
  const regression::JobRequests& before = baseline.front();
  KV_ASSIGN_OR_RETURN(regression::JobRequests after,
                      FetchJobRequests(flags.after, flags.connection, *context));
  std::vector<const v1::Job*> baseline_jobs;
  for (const regression::JobRequests& runs : baseline) baseline_jobs.push_back(&runs.job);
  const regression::JobDiff diff = regression::DiffJobs(baseline, {after}, flags.options,
                                                        regression::SpreadOfJobs(baseline_jobs));
  const std::string before_name =
      baseline.size() == 1 ? before.job.job_id()
                           : absl::StrCat(before.job.job_id(), " + ", baseline.size() - 1, " more");
  if (flags.format == OutputFormat::kJson) {
    nlohmann::ordered_json json = regression::JobDiffJson(diff);
    json["before_jobs"] = nlohmann::ordered_json::array();
    for (const v1::Job* job : baseline_jobs) json["before_jobs"].push_back(job->job_id());
    json["after_job"] = after.job.job_id();
    *context->out << json.dump(2) << "\n";
  } else {
    PrintJobDiff(diff, before_name, after.job.job_id(), *context->out);
  }
  if (!flags.html.empty()) {
    KV_RETURN_IF_ERROR(WriteFileAtomically(
        flags.html, report::RenderHtmlReport(
                        after.job, {after.job.validity().begin(), after.job.validity().end()},
                        &diff, before_name)));
    *context->err << "report with the diff: " << flags.html << "\n";
  }
  if (diff.scenarios.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("no scenario of ", before.job.job_id(),
                                                   " matches a scenario of ", after.job.job_id(),
                                                   " (by tier, concurrency and agent)"));
  }
  const int regressions = CountRegressions(diff);
  if (regressions > 0) {
    return WithExitCode(absl::AbortedError(absl::StrCat(regressions, " metric(s) regressed")),
                        kExitRegression);
  }
  return absl::OkStatus();
}

}  // namespace

void AddDiffCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand(
      "diff",
      "Change per scenario and metric between two jobs, with bootstrap intervals over virtual "
      "users and a verdict; exit 9 on a regression");
  auto flags = std::make_shared<DiffFlags>();
  command->add_option("before", flags->before, "The baseline: job id or kvctl run --out folder")
      ->required();
  command->add_option("after", flags->after, "The job judged against it")->required();
  command->add_option("--baseline-also", flags->before_also,
                      "More runs of the baseline's spec, pooled with it: they show how whole runs "
                      "vary, which a verdict needs (3 runs in all)");
  command
      ->add_option("--band", flags->options.band,
                   "Practical-significance band in % (percentage points for shares): a change "
                   "whose interval lies inside it is no_change")
      ->check(CLI::Range(0.01, 100.0))
      ->capture_default_str();
  command->add_option("--confidence", flags->options.confidence, "Interval confidence level")
      ->check(CLI::Range(0.5, 0.999))
      ->capture_default_str();
  command->add_option("--resamples", flags->options.resamples, "Bootstrap resamples")
      ->check(CLI::Range(100, 100000))
      ->capture_default_str();
  command->add_option("--seed", flags->options.seed, "Seed of the resampling")
      ->capture_default_str();
  command->add_option("--html", flags->html,
                      "Also write the after job's HTML report with the diff as a section");
  AddOutputOption(command, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  AddConnectionFlags(command, &flags->connection);
  command->callback(
      [context, flags] { context->action = [context, flags] { return Diff(*flags, context); }; });
}

}  // namespace kvbench::kvctl
