#include "controller/regression/regression_metric.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "common/stats/percentiles.h"

namespace kvbench::regression {
namespace {

constexpr std::array<RegressionMetricInfo, kRegressionMetricCount> kMetrics = {{
    {RegressionMetric::kTtftP50, "ttft_p50_s", "TTFT p50", "ms", 1e3, ChangeKind::kRelativePct,
     false},
    {RegressionMetric::kTtftP95, "ttft_p95_s", "TTFT p95", "ms", 1e3, ChangeKind::kRelativePct,
     false},
    {RegressionMetric::kTtftP99, "ttft_p99_s", "TTFT p99", "ms", 1e3, ChangeKind::kRelativePct,
     false},
    {RegressionMetric::kTtftMean, "ttft_mean_s", "TTFT mean", "ms", 1e3, ChangeKind::kRelativePct,
     false},
    {RegressionMetric::kTpotMean, "tpot_mean_s", "TPOT mean", "ms", 1e3, ChangeKind::kRelativePct,
     false},
    {RegressionMetric::kOutputTokensPerS, "output_tokens_per_s", "Output tokens/s", "tok/s", 1,
     ChangeKind::kRelativePct, true},
    {RegressionMetric::kRequestsPerS, "requests_per_s", "Requests/s", "req/s", 1,
     ChangeKind::kRelativePct, true},
    {RegressionMetric::kCacheHitPct, "cache_hit_pct", "Cached prompt tokens", "%", 1,
     ChangeKind::kPercentagePoints, true},
}};

}  // namespace

const char* ChangeKindName(ChangeKind kind) {
  return kind == ChangeKind::kRelativePct ? "relative_pct" : "percentage_points";
}

const std::array<RegressionMetricInfo, kRegressionMetricCount>& AllRegressionMetrics() {
  return kMetrics;
}

const RegressionMetricInfo& InfoOf(RegressionMetric metric) {
  const int index = static_cast<int>(metric);
  if (index < 0 || index >= kRegressionMetricCount) {
    std::fprintf(stderr, "InfoOf: unknown metric %d\n", index);
    std::abort();
  }
  return kMetrics[index];
}

std::optional<RegressionMetric> RegressionMetricFromKey(const std::string& key) {
  for (const RegressionMetricInfo& info : kMetrics) {
    if (key == info.key) return info.metric;
  }
  return std::nullopt;
}

MetricValues ComputeMetrics(const std::vector<const UserRequests*>& users, double duration_s) {
  std::vector<double> ttfts;
  std::vector<double> tpots;
  int64_t requests = 0;
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cached_tokens = 0;
  bool reported_cached = false;
  for (const UserRequests* user : users) {
    ttfts.insert(ttfts.end(), user->ttft_s.begin(), user->ttft_s.end());
    tpots.insert(tpots.end(), user->tpot_s.begin(), user->tpot_s.end());
    requests += user->requests;
    prompt_tokens += user->prompt_tokens;
    output_tokens += user->output_tokens;
    cached_tokens += user->cached_tokens;
    reported_cached = reported_cached || user->reported_cached;
  }
  std::sort(ttfts.begin(), ttfts.end());
  MetricValues values;
  auto set = [&values](RegressionMetric metric, std::optional<double> value) {
    values[static_cast<int>(metric)] = value;
  };
  set(RegressionMetric::kTtftP50, stats::PercentileOfSorted(ttfts, 50));
  set(RegressionMetric::kTtftP95, stats::PercentileOfSorted(ttfts, 95));
  set(RegressionMetric::kTtftP99, stats::PercentileOfSorted(ttfts, 99));
  set(RegressionMetric::kTtftMean, stats::Mean(ttfts));
  set(RegressionMetric::kTpotMean, stats::Mean(tpots));
  if (duration_s > 0) {
    set(RegressionMetric::kOutputTokensPerS, static_cast<double>(output_tokens) / duration_s);
    set(RegressionMetric::kRequestsPerS, static_cast<double>(requests) / duration_s);
  }
  if (reported_cached && prompt_tokens > 0) {
    set(RegressionMetric::kCacheHitPct,
        100.0 * static_cast<double>(cached_tokens) / static_cast<double>(prompt_tokens));
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
