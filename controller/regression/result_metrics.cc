#include "controller/regression/result_metrics.h"

#include <algorithm>

#include "controller/results/simulated_time_display.h"

namespace kvbench::regression {

MetricValues MetricsOfResult(const v1::ScenarioResult& result) {
  const v1::LatencyMetrics& latency = results::ShownLatency(result);
  MetricValues values;
  auto set = [&values](RegressionMetric metric, bool present, double value) {
    if (present) values[static_cast<int>(metric)] = value;
  };
  set(RegressionMetric::kTtftP50, latency.has_ttft_p50_s(), latency.ttft_p50_s());
  set(RegressionMetric::kTtftP95, latency.has_ttft_p95_s(), latency.ttft_p95_s());
  set(RegressionMetric::kTtftP99, latency.has_ttft_p99_s(), latency.ttft_p99_s());
  set(RegressionMetric::kTtftMean, latency.has_ttft_mean_s(), latency.ttft_mean_s());
  set(RegressionMetric::kTpotMean, latency.has_tpot_mean_s(), latency.tpot_mean_s());
  set(RegressionMetric::kOutputTokensPerS, latency.has_output_tokens_per_s(),
      latency.output_tokens_per_s());
  set(RegressionMetric::kRequestsPerS, latency.has_requests_per_s(), latency.requests_per_s());
  set(RegressionMetric::kCacheHitPct,
      result.latency().has_cached_tokens_total() && result.latency().prompt_tokens_total() > 0,
      100.0 * static_cast<double>(result.latency().cached_tokens_total()) /
          static_cast<double>(std::max<int64_t>(1, result.latency().prompt_tokens_total())));
  return values;
}

}  // namespace kvbench::regression
