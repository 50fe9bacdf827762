#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/loop/executor.h"

namespace kvbench {

// Per-name counters of the tasks a loop ran, for our own /metrics and for tests.
struct TaskStats {
  uint64_t runs = 0;
  absl::Duration total_time;
  absl::Duration max_time;
};

// The production Executor: one Boost.Asio io_context run by one thread (the caller of Run()).
// Timers use the steady clock. A task slower than the slow-task threshold is logged (rate
// limited) with its name, so a blocking call on the loop shows up.
class EventLoop : public Executor {
 public:
  // Tasks slower than this are reported: the loop must never block.
  static constexpr absl::Duration kSlowTaskThreshold = absl::Milliseconds(100);

  explicit EventLoop(std::string name);
  ~EventLoop() override;
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Runs tasks on the calling thread until Stop(). Returns at once if already stopped.
  void Run();
  // Makes Run() return after the task in progress; pending tasks are dropped. Thread-safe.
  void Stop();
  bool stopped() const { return stopped_.load(); }

  // Calls `handler(signal)` on the loop thread whenever one of `signals` arrives (SIGTERM, SIGINT,
  // SIGHUP...). Call before Run().
  void OnSignals(const std::vector<int>& signals, std::function<void(int)> handler);

  void Post(absl::string_view name, Task task) override;
  TaskId RunAfter(absl::string_view name, absl::Duration delay, Task task) override;
  TaskId RunEvery(absl::string_view name, absl::Duration period, Task task) override;
  void Cancel(TaskId id) override;
  bool IsLoopThread() const override;

  // A copy of the per-name statistics. Thread-safe.
  std::map<std::string, TaskStats> Stats() const;

 private:
  // The io_context, its timers and signal set (event_loop.cc): Boost.Asio stays out of this
  // header, which daemons, the embedded controller and their tests include, so
  // they do not each parse it.
  struct Impl;
  struct Timer;

  void RunNamed(const std::string& name, const Task& task);
  void Schedule(std::shared_ptr<Timer> timer);

  const std::string name_;
  const std::unique_ptr<Impl> impl_;
  std::atomic<bool> stopped_{false};
  std::atomic<std::thread::id> loop_thread_{};
  std::atomic<uint64_t> next_id_{1};
  mutable std::mutex stats_mu_;
  std::map<std::string, TaskStats> stats_;
};

}  // namespace kvbench
