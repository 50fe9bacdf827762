#pragma once

// The event that ends a scenario's run on the agent link: its final state, and for a failure the
// reason (the status message's first line) and the lines after it as the log tail.

#include "absl/status/status.h"
#include "kvbench/v1/event.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::agent {

// OK: SUCCEEDED; CANCELLED: CANCELLED; anything else FAILED with reason and log tail.
v1::Event ScenarioEndEvent(const absl::Status& outcome);

// A replay that ran but in which no request succeeded is a failed scenario, not a result
// (a `num_gpu_blocks` smaller than one prompt must not read "ok (32 sessions lost)"):
// FAILED_PRECONDITION "no request succeeded: all 160 requests failed; the first: stream_error:
// ...". OK when any request succeeded or none was sent.
absl::Status ReplayOutcome(const v1::ScenarioResult& result);

}  // namespace kvbench::agent
