#include "agent/sim/lmcache/eviction_loop.h"

#include <algorithm>
#include <cmath>

namespace kvbench::sim::lmcache {
namespace {

// Faster than this the loop would only burn CPU, whatever the time scale.
constexpr absl::Duration kMinPeriod = absl::Milliseconds(1);

}  // namespace

EvictionLoop::EvictionLoop(Executor* executor, ChunkStore* store, double time_scale,
                           const sim::SimClock* sim_clock)
    : executor_(executor),
      store_(store),
      period_(std::max(kMinPeriod, kEvictionLoopPeriod * time_scale)),
      sim_clock_(sim_clock) {}

EvictionLoop::~EvictionLoop() { Stop(); }

void EvictionLoop::Tick() {
  store_->EvictionTick();
  if (L2Adapter* l2 = store_->l2(); l2 != nullptr) l2->EvictionTick();
}

void EvictionLoop::Start() {
  if (sim_clock_ != nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_) return;
    started_ = true;
    next_tick_s_ = sim_clock_->NowSeconds() + absl::ToDoubleSeconds(kEvictionLoopPeriod);
    return;
  }
  if (task_.valid()) return;
  task_ = executor_->RunEvery("lmcache.eviction_tick", period_, [this] { Tick(); });
}

void EvictionLoop::CatchUp() {
  if (sim_clock_ == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (!started_) return;
  const double now = sim_clock_->NowSeconds();
  if (now < next_tick_s_) return;
  Tick();
  const double period_s = absl::ToDoubleSeconds(kEvictionLoopPeriod);
  next_tick_s_ += (std::floor((now - next_tick_s_) / period_s) + 1) * period_s;
}

void EvictionLoop::Stop() {
  if (sim_clock_ != nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = false;
    return;
  }
  if (!task_.valid()) return;
  executor_->Cancel(task_);
  task_ = TaskId{};
}

}  // namespace kvbench::sim::lmcache
