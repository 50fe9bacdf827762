#include "tests/fakes/fake_sleeper.h"

namespace kvbench::testing {

FakeSleeper::FakeSleeper(FakeClock* clock) : clock_(clock) {}

void FakeSleeper::SleepFor(absl::Duration duration) {
  std::function<void(absl::Duration)> on_sleep;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sleeps_.push_back(duration);
    on_sleep = on_sleep_;
  }
  if (duration > absl::ZeroDuration()) clock_->AdvanceTime(duration);
  if (on_sleep) on_sleep(clock_->Monotonic());
}

void FakeSleeper::set_on_sleep(std::function<void(absl::Duration monotonic)> on_sleep) {
  std::lock_guard<std::mutex> lock(mu_);
  on_sleep_ = std::move(on_sleep);
}

std::vector<absl::Duration> FakeSleeper::sleeps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sleeps_;
}

}  // namespace kvbench::testing
