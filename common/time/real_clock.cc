#include <chrono>

#include "absl/time/clock.h"
#include "common/time/clock.h"

namespace kvbench {

absl::Time RealClock::Now() const { return absl::Now(); }

absl::Duration RealClock::Monotonic() const {
  return absl::FromChrono(std::chrono::steady_clock::now().time_since_epoch());
}

}  // namespace kvbench
