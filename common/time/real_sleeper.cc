#include <chrono>
#include <thread>

#include "common/time/sleeper.h"

namespace kvbench {

void RealSleeper::SleepFor(absl::Duration duration) {
  if (duration <= absl::ZeroDuration()) return;
  std::this_thread::sleep_for(absl::ToChronoNanoseconds(duration));
}

}  // namespace kvbench
