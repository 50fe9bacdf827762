#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "common/lifecycle/lifecycle.h"
#include "kvbench/v1/agent_link.pb.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::agent {

// The seam between the controller link and whatever runs scenarios: one assignment at a time, on
// the worker's own thread. ThreadScenarioWorker is the real one; tests use
// testing::FakeScenarioWorker.
class ScenarioWorker {
 public:
  // Events of the scenario with job_id, scenario_id and a payload set; seq/agent_id/unix_ms are
  // set by the link. Called on the worker's thread, in order; the last one of a scenario is its
  // terminal StateChange (SUCCEEDED, FAILED or CANCELLED), and the worker is idle (a new Start is
  // accepted) by the time that event is delivered.
  using EventSink = std::function<void(v1::Event event)>;

  virtual ~ScenarioWorker() = default;

  // Starts on the worker's own thread, returns at once; every event of it carries the
  // assignment's attempt. A newer attempt of the running scenario (same job and scenario)
  // supersedes it: the running attempt is cancelled and the new one starts once the old one's
  // terminal event is delivered, in a folder of its own. The attempt already running or waiting:
  // OK and nothing changes (a repeated assignment). FAILED_PRECONDITION if another scenario runs.
  virtual absl::Status Start(const v1::Assignment& assignment, EventSink sink) = 0;
  // Thread-safe; a no-op unless `target` names the running attempt (job, scenario and attempt)
  // or the one waiting to start after it.
  virtual void Cancel(const v1::ScenarioAttempt& target) = 0;
  // The running attempt; an empty scenario_id when idle. Thread-safe.
  virtual v1::ScenarioAttempt running() const = 0;
  std::string running_scenario_id() const { return running().scenario_id(); }
};

// The attempt an assignment is for.
inline v1::ScenarioAttempt AttemptOf(const v1::Assignment& assignment) {
  v1::ScenarioAttempt attempt;
  attempt.set_job_id(assignment.scenario().job_id());
  attempt.set_scenario_id(assignment.scenario().scenario_id());
  attempt.set_attempt(assignment.attempt());
  return attempt;
}

inline bool SameAttempt(const v1::ScenarioAttempt& a, const v1::ScenarioAttempt& b) {
  return a.job_id() == b.job_id() && a.scenario_id() == b.scenario_id() &&
         a.attempt() == b.attempt();
}

// True for the StateChange events that end a scenario.
inline bool IsTerminalEvent(const v1::Event& event) {
  if (!event.has_state_change()) return false;
  return IsScenarioEnded(event.state_change().state());
}

}  // namespace kvbench::agent
