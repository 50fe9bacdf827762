#pragma once

// The analysis of one scheduled run, pure: its change against a baseline per scenario
// and metric (regression::DiffJobs), the change points of the schedule's history up to it
// (regression::FindChangePoints per agent x tier x concurrency x metric), and the alerts both
// raise. The controller (RegressionAnalyst) gathers the input and stores the result once.

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller/analysis/analysis_settings.h"
#include "controller/regression/job_diff.h"
#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/regression.pb.h"

namespace kvbench::controller {

struct RunHistory {
  std::string schedule;
  // The schedule's earlier runs (ended), oldest first, at most history_runs - 1; the run analyzed
  // is not among them.
  std::vector<v1::Job> earlier;
  v1::Job run;
  std::vector<v1::ChangePoint> known_change_points;  // found by earlier analyses
  std::string pinned_baseline;  // a job id, or "" for the segment since the last change point
};

// The change points of the history with `run` at its end that no earlier analysis found (a
// known point of the same series within min_segment runs counts as the same change).
std::vector<v1::ChangePoint> NewChangePoints(const RunHistory& history,
                                             const AnalysisSettings& settings, absl::Time now);

// The jobs to diff the run against: the pinned one, else the last baseline_runs of the runs
// since the latest change point (known or `new_points`) that succeeded in part at least. Empty
// when there is none (the schedule's first run).
std::vector<std::string> BaselineJobIds(const RunHistory& history,
                                        const std::vector<v1::ChangePoint>& new_points,
                                        const AnalysisSettings& settings);

// The analysis: `baseline` the baseline jobs with their rows (empty: nothing to compare with),
// `run` the run's. Alerts: a regression verdict on an alert metric, and a new change point of an
// alert metric in the bad direction (each change point is new once: NewChangePoints). The alert
// metrics' tests over the run's scenarios are one family for Holm (regression::DiffJobs), so a
// regression verdict there survived the family-wise control; the other metrics are another.
v1::RunAnalysis AnalyzeRun(const RunHistory& history,
                           const std::vector<regression::JobRequests>& baseline,
                           const regression::JobRequests& run,
                           std::vector<v1::ChangePoint> new_points,
                           const AnalysisSettings& settings, absl::Time now);

// "<tier>-c<concurrency>@<agent>" ("gpu-c2@sim-a", "gpu-c2" without an agent): the series key.
std::string SeriesKey(v1::Tier tier, int32_t concurrency, const std::string& agent);

}  // namespace kvbench::controller
