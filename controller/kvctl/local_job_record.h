#pragma once

#include "absl/status/status.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// What `kvctl run` exits with for an ended job (the embedded controller decided its state by the
// controller's rule, controller/core/job_outcome.h): OK when it succeeded, CANCELLED (exit 7) when
// it was cancelled, ABORTED with the job's error (exit 5) when it failed.
// A succeeded job any of whose comparisons is invalid is FAILED_PRECONDITION with exit 8
// (kExitInvalidResults), naming them: a nightly run must not read as a success then (issue #18).
absl::Status RunExitStatus(const v1::Job& job);

// OK, or FAILED_PRECONDITION with exit 8 naming each invalid comparison group.
absl::Status InvalidComparisonsStatus(const v1::Job& job);

}  // namespace kvbench::kvctl
