#include "common/loop/event_loop.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <unordered_map>

#include "common/log/logging.h"

namespace kvbench {

struct EventLoop::Timer {
  Timer(boost::asio::io_context& io, uint64_t id, std::string name, absl::Duration period,
        Task task)
      : timer(io), id(id), name(std::move(name)), period(period), task(std::move(task)) {}

  boost::asio::steady_timer timer;
  const uint64_t id;
  const std::string name;
  const absl::Duration period;  // zero for one-shot timers
  const Task task;
};

struct EventLoop::Impl {
  Impl() : work(io.get_executor()) {}

  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work;
  std::unique_ptr<boost::asio::signal_set> signals;
  std::shared_ptr<std::function<void()>> signal_wait;  // re-arms signals after each signal
  // Owned by the loop thread.
  std::unordered_map<uint64_t, std::shared_ptr<Timer>> timers;
};

EventLoop::EventLoop(std::string name) : name_(std::move(name)), impl_(std::make_unique<Impl>()) {}

EventLoop::~EventLoop() {
  Stop();
  // Timers and signal sets must die before the io_context they were made from.
  impl_->timers.clear();
  impl_->signals.reset();
}

void EventLoop::Run() {
  loop_thread_.store(std::this_thread::get_id());
  if (!stopped_.load()) impl_->io.run();
  loop_thread_.store(std::thread::id());
}

void EventLoop::Stop() {
  stopped_.store(true);
  impl_->io.stop();
}

void EventLoop::OnSignals(const std::vector<int>& signals, std::function<void(int)> handler) {
  impl_->signals = std::make_unique<boost::asio::signal_set>(impl_->io);
  for (int signal : signals) impl_->signals->add(signal);
  auto wait = std::make_shared<std::function<void()>>();
  *wait = [this, handler = std::move(handler), wait_weak = std::weak_ptr(wait)]() {
    impl_->signals->async_wait(
        [this, handler, wait_weak](const boost::system::error_code& error, int signal) {
          if (error) return;  // cancelled: the loop is going away
          RunNamed("loop.signal", [&] { handler(signal); });
          if (auto again = wait_weak.lock()) (*again)();
        });
  };
  impl_->signal_wait = wait;
  (*wait)();
}

void EventLoop::Post(absl::string_view name, Task task) {
  boost::asio::post(impl_->io, [this, name = std::string(name), task = std::move(task)] {
    RunNamed(name, task);
  });
}

TaskId EventLoop::RunAfter(absl::string_view name, absl::Duration delay, Task task) {
  uint64_t id = next_id_.fetch_add(1);
  auto timer = std::make_shared<Timer>(impl_->io, id, std::string(name), absl::ZeroDuration(),
                                       std::move(task));
  // The deadline counts from this call, not from when the loop gets to the post.
  const auto deadline = std::chrono::steady_clock::now() +
                        absl::ToChronoNanoseconds(std::max(delay, absl::ZeroDuration()));
  boost::asio::post(impl_->io, [this, timer, deadline] {
    impl_->timers[timer->id] = timer;
    timer->timer.expires_at(deadline);
    Schedule(timer);
  });
  return TaskId{id};
}

TaskId EventLoop::RunEvery(absl::string_view name, absl::Duration period, Task task) {
  KV_CHECK(period > absl::ZeroDuration()) << "RunEvery needs a positive period name=" << name;
  uint64_t id = next_id_.fetch_add(1);
  auto timer = std::make_shared<Timer>(impl_->io, id, std::string(name), period, std::move(task));
  const auto first = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(period);
  boost::asio::post(impl_->io, [this, timer, first] {
    impl_->timers[timer->id] = timer;
    timer->timer.expires_at(first);
    Schedule(timer);
  });
  return TaskId{id};
}

void EventLoop::Schedule(std::shared_ptr<Timer> timer) {
  timer->timer.async_wait([this, weak = std::weak_ptr<Timer>(timer)](
                              const boost::system::error_code& error) {
    std::shared_ptr<Timer> self = weak.lock();
    if (error || self == nullptr || impl_->timers.count(self->id) == 0) return;  // cancelled
    if (self->period == absl::ZeroDuration()) {
      impl_->timers.erase(self->id);
      RunNamed(self->name, self->task);
      return;
    }
    // Fixed rate: the next deadline follows the previous one, not the end of this run.
    self->timer.expires_at(self->timer.expiry() + absl::ToChronoNanoseconds(self->period));
    RunNamed(self->name, self->task);
    if (impl_->timers.count(self->id) != 0) Schedule(self);
  });
}

void EventLoop::Cancel(TaskId id) {
  if (!id.valid()) return;
  boost::asio::post(impl_->io, [this, id] {
    auto it = impl_->timers.find(id.value);
    if (it == impl_->timers.end()) return;
    it->second->timer.cancel();
    impl_->timers.erase(it);
  });
}

bool EventLoop::IsLoopThread() const { return loop_thread_.load() == std::this_thread::get_id(); }

std::map<std::string, TaskStats> EventLoop::Stats() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return stats_;
}

void EventLoop::RunNamed(const std::string& name, const Task& task) {
  const auto start = std::chrono::steady_clock::now();
  task();
  const absl::Duration took = absl::FromChrono(std::chrono::steady_clock::now() - start);
  {
    std::lock_guard<std::mutex> lock(stats_mu_);
    TaskStats& stats = stats_[name];
    ++stats.runs;
    stats.total_time += took;
    stats.max_time = std::max(stats.max_time, took);
  }
  if (took > kSlowTaskThreshold) {
    KV_LOG_EVERY_N_SEC(WARNING, 10) << "slow task on event loop loop=" << name_
                                    << " task=" << name << " took=" << absl::FormatDuration(took);
  }
}

}  // namespace kvbench
