#include "controller/kvctl/local_job_record.h"

namespace kvbench::kvctl {

absl::Status RunExitStatus(const v1::Job& job, VerdictGate gate) {
  switch (job.state()) {
    case v1::JOB_STATE_SUCCEEDED:
      return InvalidComparisonsStatus(job, gate);
    case v1::JOB_STATE_CANCELLED:
      return absl::CancelledError("cancelled; finished scenarios are written");
    default:
      return absl::AbortedError(job.error());
  }
}

}  // namespace kvbench::kvctl
