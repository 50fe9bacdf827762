#pragma once

#include <chrono>

namespace kvbench::runner {

// The one monotonic clock of a replay: every *_s field is seconds since the run's start on
// std::chrono::steady_clock. Copyable and read-only after construction, so slot threads and the
// curl chunk callback read it without locks. (Replay timing is deliberately not behind the
// Clock seam: a virtual call and absl::Time conversion on the hot path buy nothing here.)
class ReplayClock {
 public:
  ReplayClock() : start_(std::chrono::steady_clock::now()) {}
  double Now() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace kvbench::runner
