#include "controller/kvctl/local_job_record.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/exit_code.h"

namespace kvbench::kvctl {

absl::Status InvalidComparisonsStatus(const v1::Job& job) {
  std::vector<std::string> invalid;
  for (const v1::Validity& validity : job.validity()) {
    if (validity.verdict() == v1::VERDICT_INVALID) invalid.push_back(validity.comparison_group());
  }
  if (invalid.empty()) return absl::OkStatus();
  return WithExitCode(
      absl::FailedPreconditionError(
          absl::StrCat("job ", job.job_id(), " ended but comparison ", absl::StrJoin(invalid, ", "),
                       invalid.size() == 1 ? " is" : " are", " invalid (the verdict says why)")),
      kExitInvalidResults);
}

absl::Status RunExitStatus(const v1::Job& job) {
  switch (job.state()) {
    case v1::JOB_STATE_SUCCEEDED:
      return InvalidComparisonsStatus(job);
    case v1::JOB_STATE_CANCELLED:
      return absl::CancelledError("cancelled; finished scenarios are written");
    default:
      return absl::AbortedError(job.error());
  }
}

}  // namespace kvbench::kvctl
