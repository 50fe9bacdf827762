#include "controller/regression/regression_metric.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "controller/results/metric_catalog.h"

namespace kvbench::regression {
namespace {

// The catalog's judged metrics, numbered; aborts when the catalog's list and the enum disagree.
std::array<RegressionMetricInfo, kRegressionMetricCount> Numbered() {
  const std::vector<const results::MetricInfo*>& judged = results::JudgedMetrics();
  if (judged.size() != kRegressionMetricCount) {
    std::fprintf(stderr, "regression metrics: the catalog judges %zu metrics, the enum names %d\n",
                 judged.size(), kRegressionMetricCount);
    std::abort();
  }
  std::array<RegressionMetricInfo, kRegressionMetricCount> metrics;
  for (int i = 0; i < kRegressionMetricCount; ++i) {
    metrics[i] = RegressionMetricInfo{*judged[i], static_cast<RegressionMetric>(i)};
  }
  return metrics;
}

}  // namespace

const char* ChangeKindName(ChangeKind kind) {
  return kind == ChangeKind::kRelativePct ? "relative_pct" : "percentage_points";
}

const std::array<RegressionMetricInfo, kRegressionMetricCount>& AllRegressionMetrics() {
  static const std::array<RegressionMetricInfo, kRegressionMetricCount> metrics = Numbered();
  return metrics;
}

const RegressionMetricInfo& InfoOf(RegressionMetric metric) {
  const int index = static_cast<int>(metric);
  if (index < 0 || index >= kRegressionMetricCount) {
    std::fprintf(stderr, "InfoOf: unknown metric %d\n", index);
    std::abort();
  }
  return AllRegressionMetrics()[index];
}

std::optional<RegressionMetric> RegressionMetricFromKey(const std::string& key) {
  for (const RegressionMetricInfo& info : AllRegressionMetrics()) {
    if (key == info.key) return info.metric;
  }
  return std::nullopt;
}

MetricValues ComputeMetrics(const std::vector<const UserRequests*>& users, double duration_s) {
  results::PooledRequests pooled;
  for (const UserRequests* user : users) {
    pooled.ttft_s.insert(pooled.ttft_s.end(), user->ttft_s.begin(), user->ttft_s.end());
    pooled.tpot_s.insert(pooled.tpot_s.end(), user->tpot_s.begin(), user->tpot_s.end());
    pooled.requests += user->requests;
    pooled.prompt_tokens += user->prompt_tokens;
    pooled.output_tokens += user->output_tokens;
    pooled.cached_tokens += user->cached_tokens;
    pooled.reported_cached = pooled.reported_cached || user->reported_cached;
  }
  std::sort(pooled.ttft_s.begin(), pooled.ttft_s.end());
  pooled.duration_s = duration_s;
  MetricValues values;
  for (const RegressionMetricInfo& info : AllRegressionMetrics()) {
    values[static_cast<int>(info.metric)] = info.of_requests(pooled);
  }
  return values;
}

MetricValues ComputeMetrics(const std::vector<RunSample>& runs) {
  std::vector<const UserRequests*> users;
  double duration_s = 0;
  for (const RunSample& run : runs) {
    for (const UserRequests& user : run.users) users.push_back(&user);
    duration_s += run.duration_s;
  }
  return ComputeMetrics(users, duration_s);
}

}  // namespace kvbench::regression
