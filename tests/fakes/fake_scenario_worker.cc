#include "tests/fakes/fake_scenario_worker.h"

#include <chrono>

#include "absl/strings/str_cat.h"

namespace kvbench::testing {

FakeScenarioWorker::~FakeScenarioWorker() { Shutdown(); }

absl::Status FakeScenarioWorker::Start(const v1::Assignment& assignment, EventSink sink) {
  std::lock_guard<std::mutex> lock(mu_);
  assignments_.push_back(assignment);
  if (agent::SameAttempt(running_, agent::AttemptOf(assignment)))
    return absl::OkStatus();  // repeated
  if (!running_.scenario_id().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("busy with scenario ", running_.scenario_id()));
  }
  if (thread_.joinable()) thread_.join();  // idle: its thread only returns now
  running_ = agent::AttemptOf(assignment);
  cancelled_ = false;
  complete_now_ = false;
  thread_ = std::thread([this, assignment, sink = std::move(sink)] { Play(assignment, sink); });
  return absl::OkStatus();
}

void FakeScenarioWorker::Play(v1::Assignment assignment, EventSink sink) {
  const v1::Scenario& scenario = assignment.scenario();
  auto event_of = [&] {
    v1::Event event;
    event.set_job_id(scenario.job_id());
    event.set_scenario_id(scenario.scenario_id());
    event.set_attempt(assignment.attempt());
    return event;
  };
  v1::Event running = event_of();
  running.mutable_state_change()->set_state(v1::SCENARIO_STATE_RUNNING);
  sink(running);
  v1::Event progress = event_of();
  progress.mutable_progress()->set_phase(v1::SCENARIO_PHASE_REPLAY);
  progress.mutable_progress()->set_sessions_total(scenario.concurrency());
  sink(progress);

  std::unique_lock<std::mutex> lock(mu_);
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         absl::ToChronoNanoseconds(duration_));
  if (auto_complete_) {
    cv_.wait_until(lock, until, [this] { return cancelled_ || complete_now_; });
  } else {
    cv_.wait(lock, [this] { return cancelled_ || complete_now_; });
  }
  waiting_on_hold_ = held_;
  cv_.notify_all();
  cv_.wait(lock, [this] { return cancelled_ || complete_now_ || !held_; });
  waiting_on_hold_ = false;
  const bool cancelled = cancelled_;
  const std::string fail_with = fail_with_;
  lock.unlock();

  v1::Event end = event_of();
  if (cancelled) {
    end.mutable_state_change()->set_state(v1::SCENARIO_STATE_CANCELLED);
    end.mutable_state_change()->set_reason("cancelled");
  } else if (!fail_with.empty()) {
    end.mutable_state_change()->set_state(v1::SCENARIO_STATE_FAILED);
    end.mutable_state_change()->set_reason(fail_with);
  } else {
    v1::Event result = event_of();
    v1::ScenarioResult* r = result.mutable_result();
    r->set_scenario_id(scenario.scenario_id());
    r->set_tier(scenario.tier());
    r->set_concurrency(scenario.concurrency());
    r->mutable_sessions()->set_requested(scenario.concurrency());
    r->mutable_sessions()->set_achieved(scenario.concurrency());
    r->mutable_latency()->set_ttft_p50_s(0.001 * scenario.concurrency());
    sink(result);
    end.mutable_state_change()->set_state(v1::SCENARIO_STATE_SUCCEEDED);
  }
  {
    // Idle before the terminal event is delivered, like the real runner.
    std::lock_guard<std::mutex> idle(mu_);
    running_.Clear();
    finished_.push_back(scenario.scenario_id());
  }
  sink(end);
}

void FakeScenarioWorker::Cancel(const v1::ScenarioAttempt& target) {
  std::lock_guard<std::mutex> lock(mu_);
  cancels_.push_back(target.scenario_id());
  if (running_.scenario_id().empty() || !agent::SameAttempt(running_, target)) return;
  cancelled_ = true;
  cv_.notify_all();
}

v1::ScenarioAttempt FakeScenarioWorker::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

void FakeScenarioWorker::set_auto_complete(bool auto_complete) {
  std::lock_guard<std::mutex> lock(mu_);
  auto_complete_ = auto_complete;
}

void FakeScenarioWorker::set_duration(absl::Duration duration) {
  std::lock_guard<std::mutex> lock(mu_);
  duration_ = duration;
}

void FakeScenarioWorker::set_fail_with(std::string reason) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_with_ = std::move(reason);
}

void FakeScenarioWorker::Hold() {
  std::lock_guard<std::mutex> lock(mu_);
  held_ = true;
}

void FakeScenarioWorker::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  held_ = false;
  cv_.notify_all();
}

void FakeScenarioWorker::Complete() {
  std::lock_guard<std::mutex> lock(mu_);
  complete_now_ = true;
  cv_.notify_all();
}

void FakeScenarioWorker::Shutdown() {
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    cv_.notify_all();
    thread = std::move(thread_);
  }
  if (thread.joinable()) thread.join();
}

std::vector<v1::Assignment> FakeScenarioWorker::assignments() const {
  std::lock_guard<std::mutex> lock(mu_);
  return assignments_;
}

std::vector<std::string> FakeScenarioWorker::cancels() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancels_;
}

std::vector<std::string> FakeScenarioWorker::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_;
}

bool FakeScenarioWorker::waiting_on_hold() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_on_hold_;
}

}  // namespace kvbench::testing
