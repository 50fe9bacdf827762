#include "tests/fakes/fake_executor.h"

#include "common/log/logging.h"

namespace kvbench::testing {

FakeExecutor::FakeExecutor(FakeClock* clock) : clock_(clock) {}

void FakeExecutor::Post(absl::string_view name, Task task) {
  std::lock_guard<std::mutex> lock(mu_);
  posted_.push_back(Posted{std::string(name), std::move(task)});
}

TaskId FakeExecutor::RunAfter(absl::string_view name, absl::Duration delay, Task task) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = next_id_++;
  timers_[id] = Timer{std::string(name), clock_->Monotonic() + delay, absl::ZeroDuration(),
                      std::move(task)};
  return TaskId{id};
}

TaskId FakeExecutor::RunEvery(absl::string_view name, absl::Duration period, Task task) {
  KV_CHECK(period > absl::ZeroDuration()) << "RunEvery needs a positive period";
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = next_id_++;
  timers_[id] = Timer{std::string(name), clock_->Monotonic() + period, period, std::move(task)};
  return TaskId{id};
}

void FakeExecutor::Cancel(TaskId id) {
  std::lock_guard<std::mutex> lock(mu_);
  timers_.erase(id.value);
}

int FakeExecutor::RunUntilIdle() {
  int count = 0;
  while (true) {
    Posted next;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (posted_.empty()) break;
      next = std::move(posted_.front());
      posted_.pop_front();
    }
    ran_.push_back(next.name);
    next.task();
    ++count;
  }
  return count;
}

int FakeExecutor::AdvanceTime(absl::Duration delta) {
  const absl::Duration target = clock_->Monotonic() + delta;
  int count = RunUntilIdle();
  while (true) {
    uint64_t due_id = 0;
    Timer due;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [id, timer] : timers_) {
        if (timer.due <= target && (due_id == 0 || timer.due < due.due)) {
          due_id = id;
          due = timer;
        }
      }
      if (due_id == 0) break;
      if (due.period > absl::ZeroDuration()) {
        timers_[due_id].due += due.period;
      } else {
        timers_.erase(due_id);
      }
    }
    if (due.due > clock_->Monotonic()) clock_->AdvanceTime(due.due - clock_->Monotonic());
    ran_.push_back(due.name);
    due.task();
    ++count;
    count += RunUntilIdle();
  }
  if (target > clock_->Monotonic()) clock_->AdvanceTime(target - clock_->Monotonic());
  return count;
}

size_t FakeExecutor::posted_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return posted_.size();
}

size_t FakeExecutor::timer_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return timers_.size();
}

}  // namespace kvbench::testing
