#pragma once

// The controller's judge of scheduled runs. Every few seconds (Scan, on the loop) it
// looks at each schedule's recent fires for runs that ended and have no analysis yet, gathers
// their history (the schedule's earlier runs, the change points found before, a pinned baseline)
// and hands them to its worker thread, which reads the request rows from the store, computes the
// analysis (run_analyzer.h: a bootstrap diff against the baseline, E-Divisive change points) and
// stores it with its alerts in one transaction (RegressionStore::RecordAnalysis): once per run,
// across restarts. Back on the loop, `analyzed` is called with each stored analysis.

#include <deque>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "controller/analysis/analysis_settings.h"
#include "controller/analysis/run_analyzer.h"
#include "controller/core/job_manager.h"
#include "controller/store/event_log.h"
#include "controller/store/regression_store.h"
#include "controller/store/schedule_store.h"

namespace kvbench::controller {

// Fires of each schedule Scan looks at for runs to analyze: a run is analyzed within this many
// fires of ending, or never (a controller down across more fires than this skips the older ones).
inline constexpr int kScanFires = 10;

class RegressionAnalyst {
 public:
  // `fresh`: stored just now (its alerts are new); false for the latest analysis of a schedule
  // found at start, to restore what /metrics shows.
  using AnalyzedCallback = std::function<void(const v1::RunAnalysis& analysis, bool fresh)>;

  // Borrowed: all must outlive the analyst. `jobs` and `executor`'s loop: Scan and the callback
  // run there. Starts the worker thread.
  RegressionAnalyst(AnalysisSettings settings, std::vector<std::string> webhook_names,
                    EventLog* events, ScheduleStore* schedules, RegressionStore* regressions,
                    JobManager* jobs, Clock* clock, Executor* executor, AnalyzedCallback analyzed);
  ~RegressionAnalyst();  // Stop()s
  RegressionAnalyst(const RegressionAnalyst&) = delete;
  RegressionAnalyst& operator=(const RegressionAnalyst&) = delete;

  // Loop thread: queues every ended, unanalyzed run of the schedules' recent fires.
  void Scan();
  // Ends the worker after the analysis in flight; queued ones are picked up by the next start.
  void Stop();

 private:
  struct Work {
    RunHistory history;
    v1::Job pinned;  // the pinned baseline job, when one is pinned and exists
  };

  // Loop thread: the run's history, or nullopt when it cannot be gathered now.
  std::optional<Work> Gather(const v1::Schedule& schedule, const v1::Job& run);
  // Reports the newest stored analysis among `ids` (a schedule's fired jobs, newest first) as not
  // fresh: what /metrics shows of the schedule after a restart.
  void RestoreLatest(const std::vector<std::string>& ids);
  void WorkerLoop();
  // Worker thread: analyzes and stores; the analysis when it was stored now.
  absl::StatusOr<std::optional<v1::RunAnalysis>> Analyze(const Work& work);
  absl::StatusOr<regression::JobRequests> WithRows(const v1::Job& job);

  const AnalysisSettings settings_;
  const std::vector<std::string> webhook_names_;
  EventLog* const events_;
  ScheduleStore* const schedules_;
  RegressionStore* const regressions_;
  JobManager* const jobs_;
  Clock* const clock_;
  Executor* const executor_;
  const AnalyzedCallback analyzed_;
  // Loop thread only:
  std::set<std::string> analyzed_jobs_;  // known analyzed (or queued): not looked up again
  bool restored_ = false;                // the latest analyses were reported once at start

  absl::Mutex mu_;
  std::deque<Work> queue_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread worker_;
};

}  // namespace kvbench::controller
