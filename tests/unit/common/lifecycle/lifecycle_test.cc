// The "ended" and "succeeded with a result" rules, over every state the protos define: a state
// added later fails here until it is placed.

#include "common/lifecycle/lifecycle.h"

#include <catch2/catch.hpp>

namespace kvbench {
namespace {

TEST_CASE("A job has ended when it succeeded, failed or was cancelled", "[lifecycle]") {
  for (int value = v1::JobState_MIN; value <= v1::JobState_MAX; ++value) {
    if (!v1::JobState_IsValid(value)) continue;
    const auto state = static_cast<v1::JobState>(value);
    INFO(v1::JobState_Name(state));
    const bool ended = state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
                       state == v1::JOB_STATE_CANCELLED;
    CHECK(IsJobEnded(state) == ended);
  }
  CHECK_FALSE(IsJobEnded(v1::JOB_STATE_QUEUED));
  CHECK_FALSE(IsJobEnded(v1::JOB_STATE_RUNNING));
}

TEST_CASE("A scenario has ended when it succeeded, failed or was cancelled", "[lifecycle]") {
  for (int value = v1::ScenarioState_MIN; value <= v1::ScenarioState_MAX; ++value) {
    if (!v1::ScenarioState_IsValid(value)) continue;
    const auto state = static_cast<v1::ScenarioState>(value);
    INFO(v1::ScenarioState_Name(state));
    const bool ended = state == v1::SCENARIO_STATE_SUCCEEDED ||
                       state == v1::SCENARIO_STATE_FAILED || state == v1::SCENARIO_STATE_CANCELLED;
    CHECK(IsScenarioEnded(state) == ended);
  }
  CHECK_FALSE(IsScenarioEnded(v1::SCENARIO_STATE_PENDING));
  CHECK_FALSE(IsScenarioEnded(v1::SCENARIO_STATE_RUNNING));
}

TEST_CASE("Only a succeeded scenario with its result counts as succeeded with a result",
          "[lifecycle]") {
  v1::ScenarioStatus status;
  status.set_state(v1::SCENARIO_STATE_SUCCEEDED);
  CHECK_FALSE(SucceededWithResult(status));  // a listing without results
  status.mutable_result();
  CHECK(SucceededWithResult(status));
  status.set_state(v1::SCENARIO_STATE_FAILED);
  CHECK_FALSE(SucceededWithResult(status));  // a failed scenario's partial result
}

}  // namespace
}  // namespace kvbench
