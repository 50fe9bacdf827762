#pragma once

// The metrics a regression is judged on, each computable from any set of virtual
// users (a run, a bootstrap resample of it, several runs pooled). Their names, units and
// directions are the metric catalog's (controller/results/metric_catalog.h); this numbers them.
// Pure.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "controller/regression/run_sample.h"
#include "controller/results/metric_info.h"

namespace kvbench::regression {

// Positions in results::JudgedMetrics(): a metric judged in regressions is a row of the catalog,
// listed there, and named here.
enum class RegressionMetric {
  kTtftP50,
  kTtftP95,
  kTtftP99,
  kTtftMean,
  kTpotMean,
  kOutputTokensPerS,
  kRequestsPerS,
  // Server-reported cached prompt tokens ÷ prompt tokens, in %.
  kCacheHitPct,
};
inline constexpr int kRegressionMetricCount = 8;

using ChangeKind = results::ChangeKind;
// "relative_pct" or "percentage_points": how JSON, stored analyses and alerts name a change kind.
const char* ChangeKindName(ChangeKind kind);

// The catalog's row of a judged metric, with its position.
struct RegressionMetricInfo : results::MetricInfo {
  RegressionMetric metric;
};

const std::array<RegressionMetricInfo, kRegressionMetricCount>& AllRegressionMetrics();
const RegressionMetricInfo& InfoOf(RegressionMetric metric);
// The metric named by `key` (RegressionMetricInfo::key); nullopt for an unknown key.
std::optional<RegressionMetric> RegressionMetricFromKey(const std::string& key);

// Every metric of a set of users (times in seconds, rates per second over `duration_s`), by index
// of AllRegressionMetrics(). nullopt where there is nothing to measure (no TTFT sample, no window,
// no cached_tokens reported). For a run's own users `duration_s` is its measured window, and the
// values are the run's result; a resample is measured over the window scaled by its share of the
// users' time (bootstrap_diff.cc), so slow users weigh on throughput as they did in the run.
using MetricValues = std::array<std::optional<double>, kRegressionMetricCount>;
MetricValues ComputeMetrics(const std::vector<const UserRequests*>& users, double duration_s);

// ComputeMetrics over every user of the runs, pooled.
MetricValues ComputeMetrics(const std::vector<RunSample>& runs);

}  // namespace kvbench::regression
