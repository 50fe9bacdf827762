#pragma once

#include "absl/time/time.h"

namespace kvbench {

// Blocks the calling thread for a while (STYLE.md rule 6): code that must wait on its own thread
// (a scenario's start-up polling, waiting for killed process groups to go) takes the wait from
// here and the time from a Clock, so a test drives both on fake time. Only main.cc files build a
// RealSleeper; tests use FakeSleeper (tests/fakes/fake_sleeper.h). Code on an event loop never
// sleeps: it uses the Executor's timers.
class Sleeper {
 public:
  virtual ~Sleeper() = default;
  virtual void SleepFor(absl::Duration duration) = 0;
};

class RealSleeper : public Sleeper {
 public:
  void SleepFor(absl::Duration duration) override;
};

}  // namespace kvbench
