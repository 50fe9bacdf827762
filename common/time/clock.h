#pragma once

#include "absl/time/time.h"

namespace kvbench {

// The source of time (STYLE.md rule 6). Production code receives a Clock; only main.cc files
// build a RealClock. Tests use FakeClock (tests/fakes/fake_clock.h).
class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time, for timestamps people read and records that outlive the process.
  virtual absl::Time Now() const = 0;
  // Monotonic time since an arbitrary fixed origin, for intervals and deadlines.
  virtual absl::Duration Monotonic() const = 0;
};

class RealClock : public Clock {
 public:
  absl::Time Now() const override;
  absl::Duration Monotonic() const override;
};

}  // namespace kvbench
