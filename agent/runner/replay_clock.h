#pragma once

#include <chrono>

namespace kvbench::runner {

// The one monotonic clock of a replay: every *_s field is seconds since the run's start on
// std::chrono::steady_clock. Copyable and read-only after construction, so I/O threads read it
// without locks. (Replay timing is deliberately not behind the
// Clock seam: a virtual call and absl::Time conversion on the hot path buy nothing here.)
class ReplayClock {
 public:
  ReplayClock() : start_(std::chrono::steady_clock::now()) {}
  double Now() const { return At(std::chrono::steady_clock::now()); }
  // A steady_clock stamp (an I/O thread's arrival time) in this clock's seconds.
  double At(std::chrono::steady_clock::time_point t) const {
    return std::chrono::duration<double>(t - start_).count();
  }
  // The start as raw steady_clock seconds (CLOCK_MONOTONIC on Linux): adding it to a *_s field
  // aligns that time with another process's steady_clock stamps on the same host.
  double origin_s() const {
    return std::chrono::duration<double>(start_.time_since_epoch()).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace kvbench::runner
