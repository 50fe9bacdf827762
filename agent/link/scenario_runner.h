#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "kvbench/v1/agent_link.pb.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::agent {

// The seam between the controller link and whatever runs scenarios: one assignment at a time, on
// the runner's own thread. ExecutorScenarioRunner is the real one; tests use
// testing::FakeScenarioRunner.
class ScenarioRunner {
 public:
  // Events of the scenario with job_id, scenario_id and a payload set; seq/agent_id/unix_ms are
  // set by the link. Called on the runner's thread, in order; the last one of a scenario is its
  // terminal StateChange (SUCCEEDED, FAILED or CANCELLED), and the runner is idle (a new Start is
  // accepted) by the time that event is delivered.
  using EventSink = std::function<void(v1::Event event)>;

  virtual ~ScenarioRunner() = default;

  // Starts on the runner's own thread, returns at once. FAILED_PRECONDITION if one is running.
  virtual absl::Status Start(const v1::Assignment& assignment, EventSink sink) = 0;
  // Thread-safe; a no-op if `scenario_id` is not the running scenario.
  virtual void Cancel(const std::string& scenario_id) = 0;
  // "" when idle. Thread-safe.
  virtual std::string running_scenario_id() const = 0;
};

// True for the StateChange events that end a scenario.
inline bool IsTerminalEvent(const v1::Event& event) {
  if (!event.has_state_change()) return false;
  const v1::ScenarioState state = event.state_change().state();
  return state == v1::SCENARIO_STATE_SUCCEEDED || state == v1::SCENARIO_STATE_FAILED ||
         state == v1::SCENARIO_STATE_CANCELLED;
}

}  // namespace kvbench::agent
