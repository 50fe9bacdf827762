#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/sim/engine/engine_config.h"
#include "agent/sim/engine/engine_core.h"
#include "agent/sim/engine/engine_types.h"
#include "agent/sim/engine/external_kv_cache.h"
#include "agent/sim/engine/sim_engine.h"

namespace kvbench::sim {

// SimEngine on its own thread: an EngineCore driven in real time.
// - Simulated time is tied to real time: sim = (real - start) / time_scale. Submit and Abort stamp
//   requests with that time and hand them to the engine thread through an inbox.
// - The engine thread sleeps on a condition variable while idle. With work, it runs a step at
//   sim time `start` = max(end of the previous step, first arrival when idle), then sleeps until
//   the absolute real deadline start_real + (start + duration) x time_scale and delivers the
//   step's outputs. Steps follow each other back to back in sim time, so the work of the thread
//   itself (and its wake-up lag) never stretches simulated latencies; when the thread falls
//   behind real time it simply does not sleep until it has caught up. How late each step's
//   outputs went out (now − deadline, real seconds) goes to EngineObserver::OnStepLateness: on a
//   busy host that lateness reaches the clients and, divided by the time scale, their simulated
//   latencies.
// - Aborts are applied between steps. Stop() aborts whatever is left, on the engine thread.
// This is the one place that reads the steady clock and sleeps: SimEngine's interface takes no
// Clock, and the core it drives is a pure state machine tested with a virtual clock.
class ThreadedSimEngine : public SimEngine {
 public:
  // `external` may be null; `observer` may be null and must outlive the engine. Stop() may be
  // called from an output callback; destroying the engine from one is not supported.
  ThreadedSimEngine(EngineConfig config, std::unique_ptr<ExternalKvCache> external,
                    EngineObserver* observer);
  ~ThreadedSimEngine() override;

  void Start() override;
  void Stop() override;
  void Submit(EngineRequest request) override;
  void Abort(const std::string& request_id) override;
  const EngineConfig& config() const override { return config_; }
  double NowSimSeconds() const override;

 private:
  using SteadyClock = std::chrono::steady_clock;

  struct Command {
    bool is_abort = false;
    EngineRequest request;   // submit
    std::string request_id;  // abort
    double at_s = 0;         // sim time of the call
  };

  void Run();
  // Applies queued submits and aborts to the core; delivers what they answer at once.
  void ApplyCommands(std::vector<Command> commands, double* clock_s);
  double NowSimSecondsLocked() const;
  SteadyClock::time_point RealDeadline(double sim_s) const;

  // Members in dependency order; shutdown is the reverse (the thread is joined first).
  const EngineConfig config_;
  const std::unique_ptr<ExternalKvCache> external_;
  EngineObserver* const observer_;  // may be null
  EngineCore core_;  // engine thread only (or the caller of Stop when never started)

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Command> inbox_;          // guarded by mu_
  bool started_ = false;                // guarded by mu_
  bool stopping_ = false;               // guarded by mu_
  SteadyClock::time_point real_start_;  // set once by Start(), read under mu_
  std::mutex join_mu_;                  // serializes joins of concurrent Stop() calls
  std::thread thread_;
};

}  // namespace kvbench::sim
