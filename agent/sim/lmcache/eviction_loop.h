#pragma once

#include "absl/time/time.h"
#include "agent/sim/lmcache/chunk_store.h"
#include "common/loop/executor.h"

namespace kvbench::sim::lmcache {

// LMCache's L1 eviction thread polls about once a second (reference/lmcache.md §1.3, §2.2).
inline constexpr absl::Duration kEvictionLoopPeriod = absl::Seconds(1);

// Ticks ChunkStore::EvictionTick() and then the L2 adapter's EvictionTick() (upstream runs an L1
// and an L2 eviction controller, each polling once a second) every kEvictionLoopPeriod x
// --sim-time-scale of real time, on the server's executor. The L1 tick only touches bookkeeping;
// the L2 tick unlinks the files it evicts.
class EvictionLoop {
 public:
  // `executor` and `store` must outlive the loop.
  EvictionLoop(Executor* executor, ChunkStore* store, double time_scale);
  ~EvictionLoop();
  EvictionLoop(const EvictionLoop&) = delete;
  EvictionLoop& operator=(const EvictionLoop&) = delete;

  void Start();
  // Idempotent.
  void Stop();
  absl::Duration period() const { return period_; }

 private:
  Executor* const executor_;
  ChunkStore* const store_;
  const absl::Duration period_;
  TaskId task_;
};

}  // namespace kvbench::sim::lmcache
