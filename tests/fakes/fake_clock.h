#pragma once

#include <mutex>

#include "common/time/clock.h"

namespace kvbench::testing {

// A Clock that moves only when told. Wall and monotonic time advance together. Thread-safe.
class FakeClock : public Clock {
 public:
  // 2026-01-01T00:00:00Z: a fixed, readable start.
  static constexpr int64_t kStartUnixSeconds = 1767225600;

  FakeClock();
  absl::Time Now() const override;
  absl::Duration Monotonic() const override;

  void AdvanceTime(absl::Duration delta);
  void SetNow(absl::Time now);  // moves wall time only

 private:
  mutable std::mutex mu_;
  absl::Time now_;
  absl::Duration monotonic_;
};

}  // namespace kvbench::testing
