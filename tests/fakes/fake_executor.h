#pragma once

#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/loop/executor.h"
#include "tests/fakes/fake_clock.h"

namespace kvbench::testing {

// A stepped loop for unit tests: nothing runs until the test says so, and timers fire only when
// the test advances the FakeClock through this executor. Deterministic: timers due at the same
// instant run in the order they were scheduled. Posting is thread-safe; running is the test's.
class FakeExecutor : public Executor {
 public:
  explicit FakeExecutor(FakeClock* clock);

  void Post(absl::string_view name, Task task) override;
  TaskId RunAfter(absl::string_view name, absl::Duration delay, Task task) override;
  TaskId RunEvery(absl::string_view name, absl::Duration period, Task task) override;
  void Cancel(TaskId id) override;
  bool IsLoopThread() const override { return true; }

  // Runs posted tasks (and tasks they post) until none is left; returns how many ran.
  int RunUntilIdle();
  // Moves the clock forward by `delta`, stopping at each timer deadline on the way to run it and
  // then RunUntilIdle(). Returns how many tasks ran.
  int AdvanceTime(absl::Duration delta);

  size_t posted_count() const;
  size_t timer_count() const;
  // Names of every task run so far, in order.
  const std::vector<std::string>& ran() const { return ran_; }

 private:
  struct Timer {
    std::string name;
    absl::Duration due;     // on the clock's monotonic axis
    absl::Duration period;  // zero: one-shot
    Task task;
  };
  struct Posted {
    std::string name;
    Task task;
  };

  FakeClock* clock_;
  mutable std::mutex mu_;
  std::deque<Posted> posted_;
  std::map<uint64_t, Timer> timers_;  // by id: ids grow, so ties break by scheduling order
  uint64_t next_id_ = 1;
  std::vector<std::string> ran_;
};

}  // namespace kvbench::testing
