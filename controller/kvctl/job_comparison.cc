#include "controller/kvctl/job_comparison.h"

#include "absl/strings/str_cat.h"
#include "controller/kvctl/job_requests.h"
#include "controller/regression/comparison_intervals.h"

namespace kvbench::kvctl {

std::vector<results::ComparisonGroup> JobComparison(const v1::Job& job,
                                                    const std::string& job_or_dir,
                                                    const ConnectionFlags& connection,
                                                    const KvctlContext& context) {
  const std::vector<results::ScenarioRun> runs = results::RunsOfJob(job);
  std::vector<results::ComparisonGroup> groups =
      results::BuildComparison(runs, {job.validity().begin(), job.validity().end()});
  regression::JobRequests requests;
  requests.job = job;
  if (absl::Status read = FetchJobRows(job_or_dir, connection, context, &requests); !read.ok()) {
    for (results::ComparisonGroup& group : groups) {
      group.interval_note = absl::StrCat(
          "deltas without intervals: the request rows could not be read (", read.message(), ")");
    }
    return groups;
  }
  regression::AttachDeltaIntervals(runs, requests.rows, regression::DiffOptions{}, &groups);
  return groups;
}

}  // namespace kvbench::kvctl
