#include "agent/scenario/thread_scenario_worker.h"

#include "absl/strings/str_cat.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {

absl::StatusOr<std::unique_ptr<ThreadScenarioWorker>> ThreadScenarioWorker::Create(
    ScenarioEnvironmentOptions options, const WorkDirLayout& layout) {
  KV_ASSIGN_OR_RETURN(std::unique_ptr<ScenarioEnvironmentFactory> environments,
                      ScenarioEnvironmentFactory::Create(std::move(options)));
  return CreateWith(std::move(environments), [layout](const v1::ScenarioAttempt& attempt) {
    return layout.ScenarioDir(attempt.job_id(), attempt.scenario_id(), attempt.attempt());
  });
}

std::unique_ptr<ThreadScenarioWorker> ThreadScenarioWorker::CreateWith(
    std::unique_ptr<ScenarioEnvironmentFactory> environments, ScenarioDirFn scenario_dir) {
  return std::unique_ptr<ThreadScenarioWorker>(
      new ThreadScenarioWorker(std::move(scenario_dir), std::move(environments)));
}

ThreadScenarioWorker::ThreadScenarioWorker(ScenarioDirFn scenario_dir,
                                           std::unique_ptr<ScenarioEnvironmentFactory> environments)
    : scenario_dir_(std::move(scenario_dir)), environments_(std::move(environments)) {}

ThreadScenarioWorker::~ThreadScenarioWorker() { Shutdown(); }

absl::Status ThreadScenarioWorker::Start(const v1::Assignment& assignment, EventSink sink) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shut_down_) return absl::FailedPreconditionError("the agent is shutting down");
  const v1::ScenarioAttempt wanted = AttemptOf(assignment);
  if (!running_.scenario_id().empty()) {
    if (SameAttempt(running_, wanted) ||
        (waiting_.has_value() && SameAttempt(AttemptOf(waiting_->assignment), wanted))) {
      KV_LOG(INFO) << "assignment of the attempt already running ignored job=" << wanted.job_id()
                   << " scenario=" << wanted.scenario_id() << " attempt=" << wanted.attempt();
      return absl::OkStatus();
    }
    if (running_.job_id() == wanted.job_id() && running_.scenario_id() == wanted.scenario_id() &&
        running_.attempt() < wanted.attempt()) {
      // The controller gave up on the running attempt (this agent was silent past its timeout):
      // stop it, and start the new one when its teardown is over.
      KV_LOG(WARNING) << "attempt superseded job=" << wanted.job_id()
                      << " scenario=" << wanted.scenario_id() << " attempt=" << running_.attempt()
                      << " by attempt=" << wanted.attempt();
      cancel_requested_ = true;
      if (driver_ != nullptr) driver_->Cancel();
      waiting_ = Work{assignment, std::move(sink)};
      return absl::OkStatus();
    }
    return absl::FailedPreconditionError(
        absl::StrCat("busy with scenario ", running_.scenario_id(), " of job ", running_.job_id(),
                     " (attempt ", running_.attempt(), "; one scenario per agent at a time)"));
  }
  // The previous attempt's thread has delivered its terminal event; it only returns now.
  if (thread_.joinable()) thread_.join();
  running_ = wanted;
  cancel_requested_ = false;
  thread_ = std::thread(
      [this, work = Work{assignment, std::move(sink)}]() mutable { RunAttempts(std::move(work)); });
  return absl::OkStatus();
}

void ThreadScenarioWorker::RunAttempts(Work first) {
  std::optional<Work> next(std::move(first));
  while (next.has_value()) {
    const Work work = std::move(*next);
    next.reset();
    RunAttempt(work, &next);
  }
}

void ThreadScenarioWorker::EndAttemptLocked(std::optional<Work>* next) {
  driver_ = nullptr;
  if (waiting_.has_value() && !shut_down_) {
    running_ = AttemptOf(waiting_->assignment);
    cancel_requested_ = waiting_->cancelled;
    *next = std::move(waiting_);
  } else {
    running_.Clear();
  }
  waiting_.reset();
}

void ThreadScenarioWorker::RunAttempt(const Work& work, std::optional<Work>* next) {
  const v1::Assignment& assignment = work.assignment;
  const v1::Scenario& scenario = assignment.scenario();
  bool ended = false;
  ScenarioDriver driver(environments_->ForScenario(scenario_dir_(AttemptOf(assignment))),
                        assignment.spec(), scenario, [&](v1::Event event) {
                          event.set_job_id(scenario.job_id());
                          event.set_scenario_id(scenario.scenario_id());
                          event.set_attempt(assignment.attempt());
                          if (IsTerminalEvent(event)) {
                            // Idle (or on to the waiting attempt) before the controller can
                            // hear of the end, so its next assignment is taken.
                            std::lock_guard<std::mutex> lock(mu_);
                            EndAttemptLocked(next);
                            ended = true;
                          }
                          work.sink(std::move(event));
                        });
  {
    std::lock_guard<std::mutex> lock(mu_);
    driver_ = &driver;
    if (cancel_requested_) driver.Cancel();
  }
  KV_LOG(INFO) << "scenario started job=" << scenario.job_id()
               << " scenario=" << scenario.scenario_id() << " attempt=" << assignment.attempt();
  absl::StatusOr<v1::ScenarioResult> result = driver.Run();
  KV_LOG(INFO) << "scenario ended job=" << scenario.job_id()
               << " scenario=" << scenario.scenario_id() << " attempt=" << assignment.attempt()
               << " status=" << result.status();
  if (!ended) {
    // Start() joins only an idle worker's thread, so taking mu_ here cannot deadlock with it.
    std::lock_guard<std::mutex> lock(mu_);
    EndAttemptLocked(next);
  }
}

void ThreadScenarioWorker::Cancel(const v1::ScenarioAttempt& target) {
  std::lock_guard<std::mutex> lock(mu_);
  if (waiting_.has_value() && SameAttempt(AttemptOf(waiting_->assignment), target)) {
    KV_LOG(INFO) << "cancelling the waiting attempt scenario=" << target.scenario_id()
                 << " attempt=" << target.attempt();
    waiting_->cancelled = true;  // it starts cancelled, so its end is reported as usual
    return;
  }
  if (running_.scenario_id().empty() || !SameAttempt(running_, target)) return;
  KV_LOG(INFO) << "cancelling scenario=" << target.scenario_id() << " attempt=" << target.attempt();
  cancel_requested_ = true;
  if (driver_ != nullptr) driver_->Cancel();
}

v1::ScenarioAttempt ThreadScenarioWorker::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

void ThreadScenarioWorker::Shutdown() {
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shut_down_ = true;
    cancel_requested_ = true;
    if (driver_ != nullptr) driver_->Cancel();
    thread = std::move(thread_);
  }
  if (thread.joinable()) thread.join();
}

}  // namespace kvbench::agent
