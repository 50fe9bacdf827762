#include "agent/sim/lmcache/eviction_loop.h"

#include <algorithm>

namespace kvbench::sim::lmcache {
namespace {

// Faster than this the loop would only burn CPU, whatever the time scale.
constexpr absl::Duration kMinPeriod = absl::Milliseconds(1);

}  // namespace

EvictionLoop::EvictionLoop(Executor* executor, ChunkStore* store, double time_scale)
    : executor_(executor),
      store_(store),
      period_(std::max(kMinPeriod, kEvictionLoopPeriod * time_scale)) {}

EvictionLoop::~EvictionLoop() { Stop(); }

void EvictionLoop::Start() {
  if (task_.valid()) return;
  task_ = executor_->RunEvery("lmcache.eviction_tick", period_, [this] {
    store_->EvictionTick();
    if (L2Adapter* l2 = store_->l2(); l2 != nullptr) l2->EvictionTick();
  });
}

void EvictionLoop::Stop() {
  if (!task_.valid()) return;
  executor_->Cancel(task_);
  task_ = TaskId{};
}

}  // namespace kvbench::sim::lmcache
