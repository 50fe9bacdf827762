#pragma once

#include <chrono>

#include "agent/sim/clock/sim_clock.h"

namespace kvbench::runner {

// The one monotonic clock of a replay: every *_s field is seconds since the run's start on
// std::chrono::steady_clock. Copyable and read-only after construction, so I/O threads read it
// without locks. (Replay timing is deliberately not behind the
// Clock seam: a virtual call and absl::Time conversion on the hot path buy nothing here.)
//
// With a SimClock (kv-runner --sim-clock) the stamps are the scenario's
// simulated time since the run's start × its time scale instead: what a host that kept up would
// have measured, so results' simulated latency (÷ time scale) is the simulated time itself, the
// same on every rerun. Simulated time stands still while what is being stamped is in flight on
// that clock (RoundExchange counts it), so the stamp is read when the bytes are handled and an
// I/O thread's arrival time is not used. WallNow() stays on steady_clock.
class ReplayClock {
 public:
  ReplayClock() : start_(std::chrono::steady_clock::now()) {}
  explicit ReplayClock(sim::SimClock* sim)
      : start_(std::chrono::steady_clock::now()),
        sim_(sim),
        sim_origin_s_(sim != nullptr ? sim->NowSeconds() : 0),
        sim_scale_(sim != nullptr ? sim->time_scale() : 1) {}

  double Now() const { return sim_ != nullptr ? SimNow() : WallNow(); }
  // A steady_clock stamp (an I/O thread's arrival time) in this clock's seconds.
  double At(std::chrono::steady_clock::time_point t) const {
    if (sim_ != nullptr) return SimNow();
    return std::chrono::duration<double>(t - start_).count();
  }
  // Wall seconds since the start, whatever the clock stamps.
  double WallNow() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  // The start as raw steady_clock seconds (CLOCK_MONOTONIC on Linux): adding it to a *_s field
  // aligns that time with another process's steady_clock stamps on the same host.
  double origin_s() const {
    return std::chrono::duration<double>(start_.time_since_epoch()).count();
  }
  // The shared simulated clock, or null.
  sim::SimClock* sim() const { return sim_; }

 private:
  double SimNow() const { return (sim_->NowSeconds() - sim_origin_s_) * sim_scale_; }

  std::chrono::steady_clock::time_point start_;
  sim::SimClock* sim_ = nullptr;
  double sim_origin_s_ = 0;
  double sim_scale_ = 1;
};

}  // namespace kvbench::runner
