#include "agent/sim/engine/threaded_sim_engine.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kvbench::sim {

ThreadedSimEngine::ThreadedSimEngine(EngineConfig config, std::unique_ptr<ExternalKvCache> external,
                                     EngineObserver* observer)
    : config_(std::move(config)),
      external_(std::move(external)),
      observer_(observer),
      core_(config_, external_.get(), observer) {}

ThreadedSimEngine::~ThreadedSimEngine() { Stop(); }

void ThreadedSimEngine::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (started_ || stopping_) return;
  started_ = true;
  real_start_ = SteadyClock::now();
  thread_ = std::thread([this] { Run(); });
}

void ThreadedSimEngine::Stop() {
  bool first_call;
  bool was_started;
  {
    std::lock_guard<std::mutex> lock(mu_);
    first_call = !stopping_;
    stopping_ = true;
    was_started = started_;
  }
  wake_.notify_all();
  if (was_started) {
    // From an output callback (the engine thread itself) the thread exits after the callback;
    // a later Stop() or the destructor joins it.
    std::lock_guard<std::mutex> join_lock(join_mu_);
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
    return;
  }
  if (!first_call) return;
  // Never started: answer what was submitted on this thread.
  std::vector<Command> commands;
  {
    std::lock_guard<std::mutex> lock(mu_);
    commands.swap(inbox_);
  }
  double clock_s = 0;
  ApplyCommands(std::move(commands), &clock_s);
  for (const PendingOutput& output : core_.AbortAll(clock_s)) output.Deliver();
}

void ThreadedSimEngine::Submit(EngineRequest request) {
  std::unique_lock<std::mutex> lock(mu_);
  if (stopping_) {
    lock.unlock();
    SimEngine::AnswerStopped(request);
    return;
  }
  Command command;
  command.at_s = NowSimSecondsLocked();
  command.request = std::move(request);
  inbox_.push_back(std::move(command));
  lock.unlock();
  wake_.notify_one();
}

void ThreadedSimEngine::Abort(const std::string& request_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    Command command;
    command.is_abort = true;
    command.request_id = request_id;
    command.at_s = NowSimSecondsLocked();
    inbox_.push_back(std::move(command));
  }
  wake_.notify_one();
}

double ThreadedSimEngine::NowSimSeconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return NowSimSecondsLocked();
}

double ThreadedSimEngine::NowSimSecondsLocked() const {
  if (!started_) return 0;
  const std::chrono::duration<double> real = SteadyClock::now() - real_start_;
  return real.count() / config_.time_scale;
}

ThreadedSimEngine::SteadyClock::time_point ThreadedSimEngine::RealDeadline(double sim_s) const {
  const std::chrono::duration<double> real(sim_s * config_.time_scale);
  return real_start_ + std::chrono::duration_cast<SteadyClock::duration>(real);
}

void ThreadedSimEngine::ApplyCommands(std::vector<Command> commands, double* clock_s) {
  for (Command& command : commands) {
    std::optional<PendingOutput> answer;
    if (command.is_abort) {
      answer = core_.Abort(command.request_id, std::max(*clock_s, command.at_s));
    } else {
      answer = core_.Submit(std::move(command.request), command.at_s);
    }
    if (answer) answer->Deliver();
  }
}

void ThreadedSimEngine::Run() {
  double clock_s = 0;  // the simulated time the engine has reached
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !inbox_.empty() || core_.HasWork(); });
    if (stopping_) break;
    std::vector<Command> commands;
    commands.swap(inbox_);
    lock.unlock();
    ApplyCommands(std::move(commands), &clock_s);
    if (core_.HasWork()) {
      const double start_s = core_.EarliestStart(clock_s);
      const StepResult step = core_.Step(start_s);
      clock_s = start_s + step.duration_s;
      lock.lock();
      // Absolute deadlines: sleeping never accumulates drift. Stop() cuts the sleep short.
      const SteadyClock::time_point deadline = RealDeadline(clock_s);
      wake_.wait_until(lock, deadline, [&] { return stopping_; });
      const bool cut_short = stopping_;
      lock.unlock();
      if (observer_ != nullptr && !cut_short) {
        const std::chrono::duration<double> late = SteadyClock::now() - deadline;
        observer_->OnStepLateness(std::max(late.count(), 0.0));
      }
      // Delivered even when stopping: finished requests are no longer in the core.
      for (const PendingOutput& output : step.outputs) output.Deliver();
    }
    lock.lock();
  }
  std::vector<Command> commands;
  commands.swap(inbox_);
  lock.unlock();
  ApplyCommands(std::move(commands), &clock_s);
  for (const PendingOutput& output : core_.AbortAll(clock_s)) output.Deliver();
}

}  // namespace kvbench::sim
