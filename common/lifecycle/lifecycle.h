#pragma once

// When a job or a scenario has ended, and when a scenario has a result to show: one rule each for
// the controller, kvctl and the agent, so that a state added to the protos is placed in one spot.

#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench {

// SUCCEEDED, FAILED or CANCELLED: the job will not change again.
bool IsJobEnded(v1::JobState state);
// SUCCEEDED, FAILED or CANCELLED: the scenario's attempt will not change again.
bool IsScenarioEnded(v1::ScenarioState state);
// A scenario whose numbers may be compared: it succeeded and its result is there (a succeeded
// scenario of a listing without results has none).
bool SucceededWithResult(const v1::ScenarioStatus& status);

}  // namespace kvbench
