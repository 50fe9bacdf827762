#include "agent/runner/loop_lag_probe.h"

#include <chrono>
#include <utility>

namespace kvbench::runner {

LoopLagProbe::LoopLagProbe(AsyncHttpClient* client, const ReplayClock* clock, absl::Duration period)
    : client_(client),
      clock_(clock),
      period_(period),
      timeline_(std::make_shared<LagTimeline>(kLoopLagBucketSeconds)) {}

LoopLagProbe::~LoopLagProbe() { Stop(); }

void LoopLagProbe::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { Run(); });
}

void LoopLagProbe::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<double> LoopLagProbe::MaxLag(double from_s, double to_s) const {
  return timeline_->MaxBetween(from_s, to_s);
}

void LoopLagProbe::Run() {
  using SteadyClock = std::chrono::steady_clock;
  const auto period = absl::ToChronoNanoseconds(period_);
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    // A period from now, not from the last intended tick: a probe thread that itself woke late
    // (a loaded host) posts its next probe a period later, never a catch-up burst, so probes
    // stay at least a period apart.
    const SteadyClock::time_point next = SteadyClock::now() + period;
    if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
    const ReplayClock clock = *clock_;  // copied into the task: it may outlive the probe
    // The lag in wall seconds, placed at the clock's time (the records' stamps: simulated ones
    // with a SimClock, where time stands still between turns).
    const double posted_wall_s = clock.WallNow();
    const bool posted = client_->Post([timeline = timeline_, clock, posted_wall_s] {
      timeline->Record(clock.Now(), clock.WallNow() - posted_wall_s);
    });
    if (!posted) return;  // not supported, or shut down
  }
}

}  // namespace kvbench::runner
