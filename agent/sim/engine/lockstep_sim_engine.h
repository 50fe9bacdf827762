#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/sim/clock/sim_clock.h"
#include "agent/sim/engine/engine_config.h"
#include "agent/sim/engine/engine_core.h"
#include "agent/sim/engine/engine_types.h"
#include "agent/sim/engine/external_kv_cache.h"
#include "agent/sim/engine/sim_engine.h"

namespace kvbench::sim {

// SimEngine on a shared SimClock: the EngineCore stepped by turns of the
// scenario's discrete-event clock instead of by wall time, so the same requests give the same
// simulated numbers whatever the host is doing.
// - Submit and Abort (any thread) queue the call and mark arrivals at the clock; they reach the
//   core at the engine's next kStep turn, at that turn's time. Arrivals of one instant are
//   submitted in content order (a hash of prompt, max_tokens and ignore_eos), not in the order the
//   bytes came in, and a request without a sample_key draws its output from that hash: the
//   engine's request ids follow arrival order, which the host decides.
// - A kStep turn runs one step at the turn's time and schedules its outputs as a kDeliver event at
//   its end; the kDeliver turn hands them to their callbacks (which count what they send, so time
//   waits for the client) and schedules the next step at the same instant. kStep sorts after
//   kDeliver, so what clients send in answer joins that next step, as with vLLM's loop.
// - How late each kDeliver turn started past its pacing target goes to
//   EngineObserver::OnStepLateness.
// - Stop() leaves the clock and aborts whatever is left.
class LockstepSimEngine : public SimEngine {
 public:
  // `rank` is this engine's place among the clock's participants (its replica index); `observer`
  // may be null and must outlive the engine.
  LockstepSimEngine(EngineConfig config, std::unique_ptr<ExternalKvCache> external,
                    EngineObserver* observer, std::unique_ptr<SimClock> clock, int rank);
  ~LockstepSimEngine() override;

  void Start() override;
  void Stop() override;
  void Submit(EngineRequest request) override;
  void Abort(const std::string& request_id) override;
  const EngineConfig& config() const override { return config_; }
  double NowSimSeconds() const override { return clock_->NowSeconds(); }

  // The content key arrivals of one instant are ordered by (and sampled from, without a key).
  static uint64_t ContentKey(const EngineRequest& request);

 private:
  void Run();
  // Hands the queued calls to the core at `now_s`, arrivals in content order; delivers at once
  // what they answer.
  void ApplyQueued(double now_s);
  // Ends the turn with the engine's next event (`next_s` < 0: none).
  void EndTurn(double next_s, SimClock::Phase phase);

  const EngineConfig config_;
  const std::unique_ptr<ExternalKvCache> external_;
  EngineObserver* const observer_;  // may be null
  const std::unique_ptr<SimClock> clock_;
  const int rank_;
  EngineCore core_;  // engine thread only (or Stop's caller once it has joined)

  std::mutex mu_;  // before the clock's lock
  std::vector<EngineRequest> arrivals_;  // guarded by mu_
  std::vector<std::string> aborts_;      // guarded by mu_
  bool started_ = false;                 // guarded by mu_
  std::atomic<bool> stopping_{false};
  std::mutex join_mu_;
  std::thread thread_;
};

}  // namespace kvbench::sim
