#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "agent/scenario/scenario_driver.h"
#include "agent/scenario/scenario_worker.h"
#include "agent/scenario_environment_factory.h"
#include "agent/tiers/profile_set.h"
#include "agent/work_dir_layout.h"
#include "common/time/clock.h"

namespace kvbench::agent {

// The real ScenarioWorker: each assignment runs through a ScenarioDriver on a thread of its
// own, with the agent's real seams (ScenarioEnvironmentFactory, as the scenario tests take them;
// agent/agent_environment.h says what the agent's config and layout make of them) and a folder of
// its own for each attempt.
class ThreadScenarioWorker : public ScenarioWorker {
 public:
  // Where an attempt's files go (a folder of its own for each attempt, so a superseded attempt's
  // teardown never writes over its retry's files).
  using ScenarioDirFn = std::function<std::string(const v1::ScenarioAttempt& attempt)>;

  // Scenario folders from `layout` (ScenarioDir). UNAVAILABLE when curl cannot be initialised.
  static absl::StatusOr<std::unique_ptr<ThreadScenarioWorker>> Create(
      ScenarioEnvironmentOptions options, const WorkDirLayout& layout);
  // The same worker over seams composed elsewhere, scenario folders where `scenario_dir` says
  // (the tests).
  static std::unique_ptr<ThreadScenarioWorker> CreateWith(
      std::unique_ptr<ScenarioEnvironmentFactory> environments, ScenarioDirFn scenario_dir);
  // Shutdown().
  ~ThreadScenarioWorker() override;

  absl::Status Start(const v1::Assignment& assignment, EventSink sink) override;
  void Cancel(const v1::ScenarioAttempt& target) override;
  v1::ScenarioAttempt running() const override;
  // Cancels the running scenario, if any, and waits until its thread has finished (teardown
  // included). Idempotent.
  void Shutdown();

 private:
  ThreadScenarioWorker(ScenarioDirFn scenario_dir,
                       std::unique_ptr<ScenarioEnvironmentFactory> environments);
  // An assignment with the sink its events go to.
  struct Work {
    v1::Assignment assignment;
    EventSink sink;
    bool cancelled = false;  // cancelled while it waited for the attempt it supersedes
  };
  // The worker's thread: `first`, then each newer attempt that superseded the one before.
  void RunAttempts(Work first);
  // Runs one attempt; when it ends, moves the waiting newer attempt (if any) into `*next`.
  void RunAttempt(const Work& work, std::optional<Work>* next);
  // The running attempt ended: the waiting one becomes the running one (into `*next`), or the
  // worker is idle. Under mu_.
  void EndAttemptLocked(std::optional<Work>* next);

  const ScenarioDirFn scenario_dir_;
  const std::unique_ptr<ScenarioEnvironmentFactory> environments_;  // the real seams

  mutable std::mutex mu_;
  v1::ScenarioAttempt running_;       // guarded by mu_; empty scenario_id when idle
  std::optional<Work> waiting_;       // guarded by mu_; a newer attempt of the running one
  ScenarioDriver* driver_ = nullptr;  // guarded by mu_; the running attempt's
  bool cancel_requested_ = false;     // guarded by mu_; for the running attempt
  bool shut_down_ = false;            // guarded by mu_
  std::thread thread_;                // guarded by mu_
};

}  // namespace kvbench::agent
