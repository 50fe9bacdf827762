#include "controller/core/job_outcome.h"

#include "absl/strings/str_cat.h"
#include "common/lifecycle/lifecycle.h"

namespace kvbench::controller {

// Why FAILED wins over CANCELLED: the cancel is the operator's own act and already known to them;
// a failure (a replica that never became healthy, a runner that crashed) is a finding they must
// see and act on, and its group's comparison is incomplete for a reason other than the cancel.
// Answering CANCELLED would hide it from `kvctl jobs --state FAILED`, from kvctl's exit code and
// from whoever reads the job later; the failed scenario's error stays the job's error.
JobOutcome DecideJobOutcome(const std::vector<ScenarioOutcome>& scenarios) {
  JobOutcome outcome;
  const ScenarioOutcome* failed = nullptr;
  const ScenarioOutcome* cancelled = nullptr;
  for (const ScenarioOutcome& scenario : scenarios) {
    if (!IsScenarioEnded(scenario.state)) return outcome;
    if (scenario.state == v1::SCENARIO_STATE_FAILED && failed == nullptr) failed = &scenario;
    if (scenario.state == v1::SCENARIO_STATE_CANCELLED && cancelled == nullptr) {
      cancelled = &scenario;
    }
  }
  if (failed != nullptr) {
    outcome.state = v1::JOB_STATE_FAILED;
    outcome.error = absl::StrCat("scenario ", failed->scenario_id, " failed: ", failed->reason);
  } else if (cancelled != nullptr) {
    outcome.state = v1::JOB_STATE_CANCELLED;
    outcome.error = cancelled->reason;
  } else {
    outcome.state = v1::JOB_STATE_SUCCEEDED;
  }
  return outcome;
}

}  // namespace kvbench::controller
