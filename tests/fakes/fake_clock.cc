#include "tests/fakes/fake_clock.h"

namespace kvbench::testing {

FakeClock::FakeClock()
    : now_(absl::FromUnixSeconds(kStartUnixSeconds)), monotonic_(absl::Hours(1)) {}

absl::Time FakeClock::Now() const {
  std::lock_guard<std::mutex> lock(mu_);
  return now_;
}

absl::Duration FakeClock::Monotonic() const {
  std::lock_guard<std::mutex> lock(mu_);
  return monotonic_;
}

void FakeClock::AdvanceTime(absl::Duration delta) {
  std::lock_guard<std::mutex> lock(mu_);
  now_ += delta;
  monotonic_ += delta;
}

void FakeClock::SetNow(absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  now_ = now;
}

}  // namespace kvbench::testing
