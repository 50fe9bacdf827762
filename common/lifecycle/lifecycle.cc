#include "common/lifecycle/lifecycle.h"

namespace kvbench {

bool IsJobEnded(v1::JobState state) {
  return state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
         state == v1::JOB_STATE_CANCELLED;
}

bool IsScenarioEnded(v1::ScenarioState state) {
  return state == v1::SCENARIO_STATE_SUCCEEDED || state == v1::SCENARIO_STATE_FAILED ||
         state == v1::SCENARIO_STATE_CANCELLED;
}

bool SucceededWithResult(const v1::ScenarioStatus& status) {
  return status.state() == v1::SCENARIO_STATE_SUCCEEDED && status.has_result();
}

}  // namespace kvbench
