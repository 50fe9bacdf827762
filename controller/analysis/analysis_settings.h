#pragma once

// How the controller judges scheduled runs: ControllerConfig.regression with its
// defaults filled in.

#include <vector>

#include "absl/status/statusor.h"
#include "controller/regression/bootstrap_diff.h"
#include "controller/regression/e_divisive.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::controller {

// Runs of a schedule's history its change points are looked for in.
inline constexpr int kDefaultHistoryRuns = 100;
// Runs since the last change point pooled as the baseline of a diff.
inline constexpr int kDefaultBaselineRuns = 5;

struct AnalysisSettings {
  regression::DiffOptions diff;
  regression::ChangePointOptions change_points;
  int history_runs = kDefaultHistoryRuns;
  int baseline_runs = kDefaultBaselineRuns;
  // Metrics whose regression raises an alert: TTFT p50, p95, p99 and output tokens/s.
  std::vector<regression::RegressionMetric> alert_metrics = {
      regression::RegressionMetric::kTtftP50, regression::RegressionMetric::kTtftP95,
      regression::RegressionMetric::kTtftP99, regression::RegressionMetric::kOutputTokensPerS};
};

// INVALID_ARGUMENT naming the field (regression.<field>) that is out of range or unknown.
absl::StatusOr<AnalysisSettings> AnalysisSettingsFromConfig(const v1::RegressionConfig& config);

}  // namespace kvbench::controller
