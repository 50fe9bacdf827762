#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include "common/time/sleeper.h"
#include "tests/fakes/fake_clock.h"

namespace kvbench::testing {

// A Sleeper on fake time: SleepFor returns at once, having moved the FakeClock forward by the
// duration, then calls the hook (if set) so a test can act at that moment ("the child exits
// after 3 s", "cancel after the second poll"). Records every duration. Thread-safe.
class FakeSleeper : public Sleeper {
 public:
  explicit FakeSleeper(FakeClock* clock);

  void SleepFor(absl::Duration duration) override;

  // Called after each sleep with the clock's monotonic time then.
  void set_on_sleep(std::function<void(absl::Duration monotonic)> on_sleep);
  std::vector<absl::Duration> sleeps() const;

 private:
  FakeClock* const clock_;
  mutable std::mutex mu_;
  std::function<void(absl::Duration)> on_sleep_;
  std::vector<absl::Duration> sleeps_;
};

}  // namespace kvbench::testing
