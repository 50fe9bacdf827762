#pragma once

#include <string>
#include <vector>

#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::controller {

// How one scenario of a job ended (or that it has not).
struct ScenarioOutcome {
  std::string scenario_id;
  v1::ScenarioState state = v1::SCENARIO_STATE_PENDING;
  std::string reason;  // why it failed or was cancelled
};

// A job's state and error from its scenarios'.
struct JobOutcome {
  v1::JobState state = v1::JOB_STATE_RUNNING;  // RUNNING while a scenario has not ended
  std::string error;
};

// The one rule for a job's outcome, used by the controller (JobManager) and by `kvctl run`:
// - a scenario that has not ended keeps the job RUNNING;
// - else any FAILED scenario makes the job FAILED, error "scenario <id> failed: <reason>" (the
//   first failed one in the job's order), even when the job was cancelled as well;
// - else any CANCELLED scenario makes it CANCELLED, error the first cancelled one's reason;
// - else SUCCEEDED.
// A cancel is recorded as the scenarios it stopped (cancelled before they ended), so a cancel
// that comes after every scenario has ended changes nothing (the controller refuses it: the job
// already ended). Pure.
JobOutcome DecideJobOutcome(const std::vector<ScenarioOutcome>& scenarios);

}  // namespace kvbench::controller
