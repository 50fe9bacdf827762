#pragma once

// The report's charts as data (chart_data.h), built from the job's results: pure functions,
// drawn by LineChart and BarChart. Times are shown in ms (TTFT) and s (series), fractions in %.

#include "controller/report/chart_data.h"
#include "controller/report/report_runs.h"

namespace kvbench::report {

// Names of the result's TimeSeries (agent/sampler): fractions 0..1 over seconds since the start.
inline constexpr char kLocalHitRateSeries[] = "local_hit_rate";
inline constexpr char kExternalHitRateSeries[] = "external_hit_rate";
inline constexpr char kKvCacheUsageSeries[] = "kv_cache_usage";

// (a) TTFT p50 (solid) and p95 (dashed) against concurrency, per tier.
LineChartSpec TtftByConcurrencyChart(const ReportRuns& runs);
// (b) TTFT p50 of each round, per tier, at one concurrency.
LineChartSpec TtftByRoundChart(const ReportRuns& runs, int concurrency);
// (c) local (solid) and external (dashed) prefix-cache hit rate over time, per tier.
LineChartSpec HitRateChart(const ReportRuns& runs, int concurrency);
// (d) vLLM KV cache usage over time, per tier.
LineChartSpec KvCacheUsageChart(const ReportRuns& runs, int concurrency);
// (e) requests/s and output tokens/s, per tier, grouped by concurrency.
BarChartSpec RequestsPerSecondChart(const ReportRuns& runs);
BarChartSpec OutputTokensPerSecondChart(const ReportRuns& runs);

}  // namespace kvbench::report
