#pragma once

#include "absl/status/status.h"
#include "controller/kvctl/verdict_gate.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// What `kvctl run` exits with for an ended job (the embedded controller decided its state by the
// controller's rule, controller/core/job_outcome.h): OK when it succeeded, CANCELLED (exit 7) when
// it was cancelled, ABORTED with the job's error (exit 5) when it failed.
// A succeeded job whose comparisons fail `gate` is FAILED_PRECONDITION with exit 8
// (kExitInvalidResults), naming them (InvalidComparisonsStatus).
absl::Status RunExitStatus(const v1::Job& job, VerdictGate gate = VerdictGate::kNoneInvalid);

}  // namespace kvbench::kvctl
