#include "agent/link/executor_scenario_runner.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {
namespace {

std::vector<int> GpuIndices(const v1::AgentConfig& config) {
  std::vector<int> gpus;
  for (const v1::GpuInfo& gpu : config.gpus()) gpus.push_back(gpu.index());
  return gpus;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ExecutorScenarioRunner>> ExecutorScenarioRunner::Create(
    const v1::AgentConfig& config, const WorkDirLayout& layout, const tiers::ProfileSet* profiles,
    Clock* clock, Sleeper* sleeper) {
  ScenarioEnvironmentOptions options = EnvironmentOptions(config, layout, *profiles, clock);
  options.sleeper = sleeper;
  KV_ASSIGN_OR_RETURN(std::unique_ptr<ScenarioEnvironmentFactory> environments,
                      ScenarioEnvironmentFactory::Create(std::move(options)));
  return CreateWith(std::move(environments), [layout](const v1::ScenarioAttempt& attempt) {
    return layout.ScenarioDir(attempt.job_id(), attempt.scenario_id(), attempt.attempt());
  });
}

std::unique_ptr<ExecutorScenarioRunner> ExecutorScenarioRunner::CreateWith(
    std::unique_ptr<ScenarioEnvironmentFactory> environments, ScenarioDirFn scenario_dir) {
  return std::unique_ptr<ExecutorScenarioRunner>(
      new ExecutorScenarioRunner(std::move(scenario_dir), std::move(environments)));
}

ScenarioEnvironmentOptions ExecutorScenarioRunner::EnvironmentOptions(
    const v1::AgentConfig& config, const WorkDirLayout& layout, const tiers::ProfileSet& profiles,
    Clock* clock) {
  ScenarioEnvironmentOptions options;
  options.profiles = profiles;
  options.dataset_roots =
      datasets::DatasetResolver::Roots(config.dataset_cache_dir(), config.dataset_mirror());
  options.allow_user_dataset_paths = false;
  options.dataset_cache_dir = config.dataset_cache_dir();
  options.dataset_mirror = MirrorOf(config);
  options.run_dir = layout.run_dir();
  options.nvme_cache_dir = config.nvme_cache_dir();
  options.model_roots.assign(config.model_roots().begin(), config.model_roots().end());
  options.gpus = GpuIndices(config);
  if (config.child_stop_grace_s() > 0) {
    options.stop_grace = absl::Seconds(config.child_stop_grace_s());
  }
  options.clock = clock;
  return options;
}

ExecutorScenarioRunner::ExecutorScenarioRunner(
    ScenarioDirFn scenario_dir, std::unique_ptr<ScenarioEnvironmentFactory> environments)
    : scenario_dir_(std::move(scenario_dir)), environments_(std::move(environments)) {}

// Where registry datasets come from: the config's mirror, else $KV_DATASET_MIRROR, else upstream.
std::string ExecutorScenarioRunner::MirrorOf(const v1::AgentConfig& config) {
  if (!config.dataset_mirror().empty()) return config.dataset_mirror();
  const char* env = std::getenv(datasets::kDatasetMirrorEnv);
  return env == nullptr ? "" : env;
}

ExecutorScenarioRunner::~ExecutorScenarioRunner() { Shutdown(); }

absl::Status ExecutorScenarioRunner::Start(const v1::Assignment& assignment, EventSink sink) {
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
      if (executor_ != nullptr) executor_->Cancel();
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

void ExecutorScenarioRunner::RunAttempts(Work first) {
  std::optional<Work> next(std::move(first));
  while (next.has_value()) {
    const Work work = std::move(*next);
    next.reset();
    RunAttempt(work, &next);
  }
}

void ExecutorScenarioRunner::EndAttemptLocked(std::optional<Work>* next) {
  executor_ = nullptr;
  if (waiting_.has_value() && !shut_down_) {
    running_ = AttemptOf(waiting_->assignment);
    cancel_requested_ = waiting_->cancelled;
    *next = std::move(waiting_);
  } else {
    running_.Clear();
  }
  waiting_.reset();
}

void ExecutorScenarioRunner::RunAttempt(const Work& work, std::optional<Work>* next) {
  const v1::Assignment& assignment = work.assignment;
  const v1::Scenario& scenario = assignment.scenario();
  bool ended = false;
  ScenarioExecutor executor(environments_->ForScenario(scenario_dir_(AttemptOf(assignment))),
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
    executor_ = &executor;
    if (cancel_requested_) executor.Cancel();
  }
  KV_LOG(INFO) << "scenario started job=" << scenario.job_id()
               << " scenario=" << scenario.scenario_id() << " attempt=" << assignment.attempt();
  absl::StatusOr<v1::ScenarioResult> result = executor.Run();
  KV_LOG(INFO) << "scenario ended job=" << scenario.job_id()
               << " scenario=" << scenario.scenario_id() << " attempt=" << assignment.attempt()
               << " status=" << result.status();
  if (!ended) {
    // Start() joins only an idle runner's thread, so taking mu_ here cannot deadlock with it.
    std::lock_guard<std::mutex> lock(mu_);
    EndAttemptLocked(next);
  }
}

void ExecutorScenarioRunner::Cancel(const v1::ScenarioAttempt& target) {
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
  if (executor_ != nullptr) executor_->Cancel();
}

v1::ScenarioAttempt ExecutorScenarioRunner::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

void ExecutorScenarioRunner::Shutdown() {
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shut_down_ = true;
    cancel_requested_ = true;
    if (executor_ != nullptr) executor_->Cancel();
    thread = std::move(thread_);
  }
  if (thread.joinable()) thread.join();
}

}  // namespace kvbench::agent
