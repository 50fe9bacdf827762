#pragma once

#include <mutex>

#include "absl/time/time.h"
#include "agent/sim/clock/sim_clock.h"
#include "agent/sim/lmcache/chunk_store.h"
#include "common/loop/executor.h"

namespace kvbench::sim::lmcache {

// LMCache's L1 eviction thread polls about once a second (reference/lmcache.md §1.3, §2.2).
inline constexpr absl::Duration kEvictionLoopPeriod = absl::Seconds(1);

// Ticks ChunkStore::EvictionTick() and then the L2 adapter's EvictionTick() (upstream runs an L1
// and an L2 eviction controller, each polling once a second). The L1 tick only touches
// bookkeeping; the L2 tick unlinks the files it evicts.
// - Without a simulated clock: every kEvictionLoopPeriod x --sim-time-scale of real time, on the
//   server's executor.
// - With the scenario's shared clock (--sim-clock, sim::SimClock): every kEvictionLoopPeriod of
//   simulated time, run by CatchUp() before each request is served. Requests come in simulated
//   time order (each is a blocking round trip inside a replica's turn), so whether a chunk was
//   evicted before a lookup no longer depends on how the host scheduled a timer (by the
//   wall clock, CPU_RAM cells differed by up to 14% across identical runs). A tick due while no
//   request came is not observable; several due at once are one (the second would find nothing over
//   the watermark).
class EvictionLoop {
 public:
  // `executor`, `store` and `sim_clock` (may be null) must outlive the loop.
  EvictionLoop(Executor* executor, ChunkStore* store, double time_scale,
               const sim::SimClock* sim_clock = nullptr);
  ~EvictionLoop();
  EvictionLoop(const EvictionLoop&) = delete;
  EvictionLoop& operator=(const EvictionLoop&) = delete;

  void Start();
  // Idempotent.
  void Stop();
  // With a simulated clock: the tick, when one fell due since the last; thread-safe. Without one,
  // nothing.
  void CatchUp();
  absl::Duration period() const { return period_; }

 private:
  void Tick();

  Executor* const executor_;
  ChunkStore* const store_;
  const absl::Duration period_;
  const sim::SimClock* const sim_clock_;
  TaskId task_;
  std::mutex mu_;
  double next_tick_s_ = 0;  // simulated seconds; with sim_clock_ only
  bool started_ = false;
};

}  // namespace kvbench::sim::lmcache
