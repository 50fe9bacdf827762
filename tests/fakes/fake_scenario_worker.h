#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "agent/scenario/scenario_worker.h"

namespace kvbench::testing {

// A ScenarioWorker that plays a scenario's events without running anything. Records every
// assignment handed to Start (accepted or not) and every Cancel (its scenario id). A repeated
// assignment of the running attempt is accepted and changes nothing; any other while busy is
// refused (the real runner's superseding of an older attempt is not imitated).
//
// Auto-complete (the default): on Start, on its own thread, emits StateChange RUNNING and one
// Progress (phase REPLAY, sessions_total = the scenario's concurrency), waits `duration`
// (Cancel ends the wait: StateChange CANCELLED), waits while held (Hold/Release), then emits a
// result (ScenarioResult with sessions requested = achieved = concurrency and ttft_p50_s =
// 0.001 x concurrency) and StateChange SUCCEEDED, or only StateChange FAILED with the reason set
// by set_fail_with. With auto-complete off, the scenario runs until Complete() or Cancel.
class FakeScenarioWorker : public agent::ScenarioWorker {
 public:
  FakeScenarioWorker() = default;
  // Cancels the running scenario and joins its thread.
  ~FakeScenarioWorker() override;

  absl::Status Start(const v1::Assignment& assignment, EventSink sink) override;
  void Cancel(const v1::ScenarioAttempt& target) override;
  v1::ScenarioAttempt running() const override;

  // Control.
  void set_auto_complete(bool auto_complete);
  void set_duration(absl::Duration duration);
  void set_fail_with(std::string reason);  // "" = succeed
  void Hold();
  void Release();
  // Ends the running scenario now (as if its duration were over), held or not.
  void Complete();
  // Cancels whatever runs and waits for its thread (no events after it returns).
  void Shutdown();

  // Observation.
  std::vector<v1::Assignment> assignments() const;
  std::vector<std::string> cancels() const;
  // Scenarios that reached their terminal event, in order.
  std::vector<std::string> finished() const;
  // True once the running scenario is past its duration and waits for Release.
  bool waiting_on_hold() const;

 private:
  void Play(v1::Assignment assignment, EventSink sink);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool auto_complete_ = true;
  absl::Duration duration_ = absl::ZeroDuration();
  std::string fail_with_;
  bool held_ = false;
  bool waiting_on_hold_ = false;
  bool complete_now_ = false;
  bool cancelled_ = false;
  v1::ScenarioAttempt running_;
  std::vector<v1::Assignment> assignments_;
  std::vector<std::string> cancels_;
  std::vector<std::string> finished_;
  std::thread thread_;
};

}  // namespace kvbench::testing
