#include "controller/kvctl/job_comparison.h"

#include "absl/strings/str_cat.h"
#include "controller/kvctl/job_requests.h"
#include "controller/regression/comparison_intervals.h"

namespace kvbench::kvctl {

std::vector<results::ComparisonGroup> JobComparisonOfRows(
    const v1::Job& job, const std::map<std::string, std::vector<v1::RequestRow>>& rows) {
  const std::vector<results::ScenarioRun> runs = results::RunsOfJob(job);
  std::vector<results::ComparisonGroup> groups =
      results::BuildComparison(runs, {job.validity().begin(), job.validity().end()});
  regression::AttachDeltaIntervals(runs, rows, regression::DiffOptions{}, &groups);
  return groups;
}

std::vector<results::ComparisonGroup> JobComparison(const v1::Job& job,
                                                    const std::string& job_or_dir,
                                                    const ConnectionFlags& connection,
                                                    const KvctlContext& context) {
  regression::JobRequests requests;
  requests.job = job;
  if (absl::Status read = FetchJobRows(job_or_dir, connection, context, &requests); !read.ok()) {
    std::vector<results::ComparisonGroup> groups = results::BuildComparison(
        results::RunsOfJob(job), {job.validity().begin(), job.validity().end()});
    for (results::ComparisonGroup& group : groups) {
      group.interval_note = absl::StrCat(
          "deltas without intervals: the request rows could not be read (", read.message(), ")");
    }
    return groups;
  }
  return JobComparisonOfRows(job, requests.rows);
}

}  // namespace kvbench::kvctl
