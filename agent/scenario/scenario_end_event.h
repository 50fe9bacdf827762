#pragma once

// The event that ends a scenario's run on the agent link: its final state, and for a failure the
// reason (the status message's first line) and the lines after it as the log tail.

#include "absl/status/status.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::agent {

// OK: SUCCEEDED; CANCELLED: CANCELLED; anything else FAILED with reason and log tail.
v1::Event ScenarioEndEvent(const absl::Status& outcome);

}  // namespace kvbench::agent
