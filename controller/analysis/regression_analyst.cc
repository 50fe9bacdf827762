#include "controller/analysis/regression_analyst.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/lifecycle/lifecycle.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::controller {
namespace {

// Request chunks read from the store per call.
constexpr int kChunksPerRead = 64;

// The ids of the jobs the schedule's fires submitted, newest first.
std::vector<std::string> FiredJobs(const std::vector<v1::ScheduleFire>& fires) {
  std::vector<std::string> ids;
  for (const v1::ScheduleFire& fire : fires) {
    if (fire.outcome() == v1::FIRE_SUBMITTED && !fire.job_id().empty())
      ids.push_back(fire.job_id());
  }
  return ids;
}

}  // namespace

RegressionAnalyst::RegressionAnalyst(AnalysisSettings settings,
                                     std::vector<std::string> webhook_names, EventLog* events,
                                     ScheduleStore* schedules, RegressionStore* regressions,
                                     JobManager* jobs, Clock* clock, Executor* executor,
                                     AnalyzedCallback analyzed)
    : settings_(std::move(settings)),
      webhook_names_(std::move(webhook_names)),
      events_(events),
      schedules_(schedules),
      regressions_(regressions),
      jobs_(jobs),
      clock_(clock),
      executor_(executor),
      analyzed_(std::move(analyzed)),
      worker_([this] { WorkerLoop(); }) {}

RegressionAnalyst::~RegressionAnalyst() { Stop(); }

void RegressionAnalyst::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  if (worker_.joinable()) worker_.join();
}

void RegressionAnalyst::Scan() {
  absl::StatusOr<std::vector<v1::Schedule>> schedules = schedules_->ListSchedules();
  if (!schedules.ok()) {
    KV_LOG(ERROR) << "cannot list schedules for their analyses: " << schedules.status();
    return;
  }
  for (const v1::Schedule& schedule : *schedules) {
    const std::string& name = schedule.spec().name();
    absl::StatusOr<std::vector<v1::ScheduleFire>> fires = schedules_->RecentFires(name, kScanFires);
    if (!fires.ok()) continue;
    const std::vector<std::string> ids = FiredJobs(*fires);
    if (!restored_) RestoreLatest(ids);
    std::vector<Work> found;  // newest first
    for (const std::string& id : ids) {
      if (analyzed_jobs_.count(id) > 0) continue;
      absl::StatusOr<v1::Job> job = jobs_->GetJob(id);
      if (!job.ok() || !IsJobEnded(job->state())) continue;
      absl::StatusOr<std::optional<v1::RunAnalysis>> stored = regressions_->GetAnalysis(id);
      if (!stored.ok()) continue;
      analyzed_jobs_.insert(id);
      if (stored->has_value()) continue;
      std::optional<Work> work = Gather(schedule, *job);
      if (work) found.push_back(*std::move(work));
    }
    // Oldest first: a run's analysis sees the change points its predecessors' found.
    absl::MutexLock lock(&mu_);
    for (auto it = found.rbegin(); it != found.rend(); ++it) queue_.push_back(std::move(*it));
  }
  restored_ = true;
}

void RegressionAnalyst::RestoreLatest(const std::vector<std::string>& ids) {
  for (const std::string& id : ids) {
    absl::StatusOr<std::optional<v1::RunAnalysis>> stored = regressions_->GetAnalysis(id);
    if (stored.ok() && stored->has_value()) {
      analyzed_(**stored, /*fresh=*/false);
      return;
    }
  }
}

std::optional<RegressionAnalyst::Work> RegressionAnalyst::Gather(const v1::Schedule& schedule,
                                                                 const v1::Job& run) {
  const std::string& name = schedule.spec().name();
  absl::StatusOr<std::vector<v1::ScheduleFire>> fires =
      schedules_->RecentFires(name, 2 * settings_.history_runs);
  if (!fires.ok()) return std::nullopt;
  const std::vector<std::string> ids = FiredJobs(*fires);
  Work work;
  work.history.schedule = name;
  work.history.run = run;
  const auto at = std::find(ids.begin(), ids.end(), run.job_id());
  for (auto it = at == ids.end() ? ids.end() : at + 1;
       it != ids.end() &&
       static_cast<int>(work.history.earlier.size()) < settings_.history_runs - 1;
       ++it) {
    absl::StatusOr<v1::Job> job = jobs_->GetJob(*it);
    if (job.ok() && IsJobEnded(job->state())) work.history.earlier.push_back(*std::move(job));
  }
  std::reverse(work.history.earlier.begin(), work.history.earlier.end());
  absl::StatusOr<v1::Baseline> baseline = regressions_->GetBaseline(name);
  if (baseline.ok() && !baseline->job_id().empty()) {
    absl::StatusOr<v1::Job> pinned = jobs_->GetJob(baseline->job_id());
    if (pinned.ok()) {
      work.history.pinned_baseline = baseline->job_id();
      work.pinned = *std::move(pinned);
    } else {
      KV_LOG(WARNING) << "pinned baseline of schedule " << name << " is gone (" << pinned.status()
                      << "); using the runs since the last change point";
    }
  }
  return work;
}

void RegressionAnalyst::WorkerLoop() {
  while (true) {
    Work work;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_ || !queue_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (stop_) return;
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    const std::string job_id = work.history.run.job_id();
    absl::StatusOr<std::optional<v1::RunAnalysis>> analysis = Analyze(work);
    if (!analysis.ok()) {
      KV_LOG(ERROR) << "cannot analyze scheduled run job=" << job_id << ": " << analysis.status();
      // Forgotten: the next scan tries again.
      executor_->Post("analysis.retry", [this, job_id] { analyzed_jobs_.erase(job_id); });
      continue;
    }
    if (!analysis->has_value()) continue;
    AnalyzedCallback analyzed = analyzed_;
    executor_->Post("analysis.done", [analyzed, stored = **analysis] { analyzed(stored, true); });
  }
}

absl::StatusOr<regression::JobRequests> RegressionAnalyst::WithRows(const v1::Job& job) {
  regression::JobRequests requests;
  requests.job = job;
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    if (status.state() != v1::SCENARIO_STATE_SUCCEEDED) continue;
    const std::string& id = status.scenario().scenario_id();
    std::vector<v1::RequestRow>& rows = requests.rows[id];
    int64_t after = -1;
    while (true) {
      KV_ASSIGN_OR_RETURN(
          std::vector<v1::RequestRecords> chunks,
          events_->ListRequests(job.job_id(), id, status.attempt(), after, kChunksPerRead));
      if (chunks.empty()) break;
      for (v1::RequestRecords& chunk : chunks) {
        after = chunk.first_index();
        for (v1::RequestRow& row : *chunk.mutable_rows()) rows.push_back(std::move(row));
      }
    }
    if (rows.empty()) requests.rows.erase(id);  // pruned, or kept by no agent: not compared
  }
  return requests;
}

absl::StatusOr<std::optional<v1::RunAnalysis>> RegressionAnalyst::Analyze(const Work& work) {
  RunHistory history = work.history;
  KV_ASSIGN_OR_RETURN(history.known_change_points,
                      regressions_->ListChangePoints(history.schedule));
  const absl::Time now = clock_->Now();
  std::vector<v1::ChangePoint> new_points = NewChangePoints(history, settings_, now);
  std::vector<regression::JobRequests> baseline;
  for (const std::string& id : BaselineJobIds(history, new_points, settings_)) {
    const v1::Job* job = id == work.pinned.job_id() ? &work.pinned : nullptr;
    for (const v1::Job& earlier : history.earlier) {
      if (earlier.job_id() == id) job = &earlier;
    }
    if (job == nullptr) continue;
    KV_ASSIGN_OR_RETURN(regression::JobRequests requests, WithRows(*job));
    baseline.push_back(std::move(requests));
  }
  KV_ASSIGN_OR_RETURN(regression::JobRequests run, WithRows(history.run));
  v1::RunAnalysis analysis =
      AnalyzeRun(history, baseline, run, std::move(new_points), settings_, now);
  KV_ASSIGN_OR_RETURN(bool recorded, regressions_->RecordAnalysis(analysis, webhook_names_, now));
  if (!recorded) return std::optional<v1::RunAnalysis>();
  return std::optional<v1::RunAnalysis>(std::move(analysis));
}

}  // namespace kvbench::controller
