#pragma once

// The table of scenario outcomes that drives every place a job's outcome is decided: the pure
// rule and the JobManager (tests/unit/controller/core/job_outcome_test.cc) and `kvctl run`'s embedded
// controller and agent (tests/component/controller/kvctl/kvctl_run_outcome_test.cc).

#include <string>
#include <vector>

#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::testing {

inline constexpr v1::ScenarioState kOk = v1::SCENARIO_STATE_SUCCEEDED;
inline constexpr v1::ScenarioState kFailed = v1::SCENARIO_STATE_FAILED;
// Caught by the cancel: the first one cancelled while it ran, the rest before they started.
inline constexpr v1::ScenarioState kCancelled = v1::SCENARIO_STATE_CANCELLED;
inline constexpr char kFailure[] = "replica-0 never became healthy";

struct Row {
  std::string name;
  std::vector<v1::ScenarioState> states;  // in the order the scenarios run; cancelled ones last
  v1::JobState job_state;
};

inline std::vector<Row> Table() {
  return {
      {"every scenario succeeded", {kOk, kOk, kOk}, v1::JOB_STATE_SUCCEEDED},
      {"one scenario failed", {kOk, kFailed, kOk}, v1::JOB_STATE_FAILED},
      {"cancelled during the first scenario",
       {kCancelled, kCancelled, kCancelled},
       v1::JOB_STATE_CANCELLED},
      {"cancelled after one succeeded", {kOk, kCancelled, kCancelled}, v1::JOB_STATE_CANCELLED},
      {"cancelled during the last scenario", {kOk, kOk, kCancelled}, v1::JOB_STATE_CANCELLED},
      // The case the two used to disagree on: a failure is not hidden by a later cancel.
      {"cancelled after one failed", {kFailed, kCancelled, kCancelled}, v1::JOB_STATE_FAILED},
      {"cancelled after one succeeded and one failed",
       {kOk, kFailed, kCancelled},
       v1::JOB_STATE_FAILED},
  };
}

}  // namespace kvbench::testing
