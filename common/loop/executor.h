#pragma once

#include <cstdint>
#include <functional>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace kvbench {

// Identifies a scheduled task so it can be cancelled. Zero is never a valid id.
struct TaskId {
  uint64_t value = 0;
  bool valid() const { return value != 0; }
  friend bool operator==(TaskId a, TaskId b) { return a.value == b.value; }
};

// Runs named tasks on one thread that owns a daemon's mutable state (STYLE.md rule 14). Other
// threads only post to it. Every method is safe to call from any thread. Names appear in the
// loop's statistics and in its slow-task warnings ("sampler.scrape", "supervisor.reap").
//
// Implementations: EventLoop (Boost.Asio, production), FakeExecutor (tests, stepped by a
// FakeClock).
class Executor {
 public:
  using Task = std::function<void()>;

  virtual ~Executor() = default;

  // Runs `task` on the loop thread, after tasks posted before it.
  virtual void Post(absl::string_view name, Task task) = 0;
  // Runs `task` once, `delay` from now.
  virtual TaskId RunAfter(absl::string_view name, absl::Duration delay, Task task) = 0;
  // Runs `task` every `period`, first after one period, until cancelled.
  virtual TaskId RunEvery(absl::string_view name, absl::Duration period, Task task) = 0;
  // Cancels a pending RunAfter/RunEvery; a no-op once it ran or was cancelled.
  virtual void Cancel(TaskId id) = 0;
  // True when called from the loop thread itself.
  virtual bool IsLoopThread() const = 0;
};

}  // namespace kvbench
