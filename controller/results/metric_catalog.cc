#include "controller/results/metric_catalog.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "common/stats/percentiles.h"
#include "controller/results/offload_served.h"
#include "controller/results/simulated_time_display.h"

namespace kvbench::results {
namespace {

using v1::EngineMetrics;
using v1::LatencyMetrics;

// A field of the shown latency: simulated seconds for a simulated engine (ShownLatency).
template <bool (LatencyMetrics::*Has)() const, double (LatencyMetrics::*Get)() const>
std::optional<double> Latency(const v1::ScenarioResult& result) {
  const LatencyMetrics& latency = ShownLatency(result);
  if (!(latency.*Has)()) return std::nullopt;
  return (latency.*Get)();
}

// A field of vLLM's own metrics (the in-replay scrapes).
template <bool (EngineMetrics::*Has)() const, double (EngineMetrics::*Get)() const>
std::optional<double> Engine(const v1::ScenarioResult& result) {
  if (!(result.engine().*Has)()) return std::nullopt;
  return (result.engine().*Get)();
}

template <bool (v1::Slo::*Has)() const, double (v1::Slo::*Get)() const>
std::optional<double> SloTarget(const v1::Slo& slo) {
  if (!(slo.*Has)()) return std::nullopt;
  return (slo.*Get)();
}

std::optional<double> LookupHitRate(const v1::ScenarioResult& result) {
  if (!result.has_lmcache() || !result.lmcache().has_hit_rate()) return std::nullopt;
  return result.lmcache().hit_rate();
}

std::optional<double> SessionsAchieved(const v1::ScenarioResult& result) {
  return result.sessions().achieved();
}

// Server-reported cached prompt tokens (vLLM's usage.prompt_tokens_details.cached_tokens: GPU
// prefix cache and KV connector together) / prompt tokens, in %; null when no response reported
// cached tokens. Token counts are not times: read from `latency` for a simulated engine too.
std::optional<double> CachedPromptPct(const v1::ScenarioResult& result) {
  const LatencyMetrics& latency = result.latency();
  if (!latency.has_cached_tokens_total() || latency.prompt_tokens_total() <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(latency.cached_tokens_total()) /
         static_cast<double>(latency.prompt_tokens_total());
}

template <int kPercentile>
std::optional<double> TtftPercentile(const PooledRequests& requests) {
  return stats::PercentileOfSorted(requests.ttft_s, kPercentile);
}

std::optional<double> TtftMean(const PooledRequests& requests) {
  return stats::Mean(requests.ttft_s);
}

std::optional<double> TpotMean(const PooledRequests& requests) {
  return stats::Mean(requests.tpot_s);
}

std::optional<double> OutputTokensPerS(const PooledRequests& requests) {
  if (requests.duration_s <= 0) return std::nullopt;
  return static_cast<double>(requests.output_tokens) / requests.duration_s;
}

std::optional<double> RequestsPerS(const PooledRequests& requests) {
  if (requests.duration_s <= 0) return std::nullopt;
  return static_cast<double>(requests.requests) / requests.duration_s;
}

std::optional<double> CachedPromptPctOfRequests(const PooledRequests& requests) {
  if (!requests.reported_cached || requests.prompt_tokens <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(requests.cached_tokens) /
         static_cast<double>(requests.prompt_tokens);
}

constexpr ChangeKind kRelative = ChangeKind::kRelativePct;
constexpr ChangeKind kPoints = ChangeKind::kPercentagePoints;
constexpr bool kHigherIsBetter = true;
constexpr bool kLowerIsBetter = false;
constexpr bool kCompared = true;
constexpr bool kNotCompared = false;

// Columns: key, result field, label, unit, shown scale, change kind, direction, Prometheus name
// and divisor, value of a result, value of request rows, SLO target, comparison row.
const std::vector<MetricInfo>& Table() {
  static const std::vector<MetricInfo> metrics = {
      {"ttft_mean_s", "latency.ttft_mean_s", "TTFT mean", "ms", 1e3, kRelative, kLowerIsBetter,
       "ttft_mean_seconds", 1,
       &Latency<&LatencyMetrics::has_ttft_mean_s, &LatencyMetrics::ttft_mean_s>, &TtftMean, nullptr,
       kCompared},
      {"ttft_p50_s", "latency.ttft_p50_s", "TTFT p50", "ms", 1e3, kRelative, kLowerIsBetter,
       "ttft_p50_seconds", 1,
       &Latency<&LatencyMetrics::has_ttft_p50_s, &LatencyMetrics::ttft_p50_s>, &TtftPercentile<50>,
       nullptr, kCompared},
      {"ttft_p90_s", "latency.ttft_p90_s", "TTFT p90", "ms", 1e3, kRelative, kLowerIsBetter, "", 1,
       &Latency<&LatencyMetrics::has_ttft_p90_s, &LatencyMetrics::ttft_p90_s>, &TtftPercentile<90>,
       nullptr, kCompared},
      {"ttft_p95_s", "latency.ttft_p95_s", "TTFT p95", "ms", 1e3, kRelative, kLowerIsBetter,
       "ttft_p95_seconds", 1,
       &Latency<&LatencyMetrics::has_ttft_p95_s, &LatencyMetrics::ttft_p95_s>, &TtftPercentile<95>,
       &SloTarget<&v1::Slo::has_ttft_p95_s, &v1::Slo::ttft_p95_s>, kCompared},
      {"ttft_p99_s", "latency.ttft_p99_s", "TTFT p99", "ms", 1e3, kRelative, kLowerIsBetter,
       "ttft_p99_seconds", 1,
       &Latency<&LatencyMetrics::has_ttft_p99_s, &LatencyMetrics::ttft_p99_s>, &TtftPercentile<99>,
       &SloTarget<&v1::Slo::has_ttft_p99_s, &v1::Slo::ttft_p99_s>, kCompared},
      {"tpot_mean_s", "latency.tpot_mean_s", "TPOT mean", "ms", 1e3, kRelative, kLowerIsBetter,
       "tpot_mean_seconds", 1,
       &Latency<&LatencyMetrics::has_tpot_mean_s, &LatencyMetrics::tpot_mean_s>, &TpotMean,
       &SloTarget<&v1::Slo::has_tpot_mean_s, &v1::Slo::tpot_mean_s>, kCompared},
      {"requests_per_s", "latency.requests_per_s", "Requests/s", "req/s", 1, kRelative,
       kHigherIsBetter, "requests_per_second", 1,
       &Latency<&LatencyMetrics::has_requests_per_s, &LatencyMetrics::requests_per_s>,
       &RequestsPerS, nullptr, kCompared},
      {"input_tokens_per_s", "latency.input_tokens_per_s", "Input tokens/s", "tok/s", 1, kRelative,
       kHigherIsBetter, "", 1,
       &Latency<&LatencyMetrics::has_input_tokens_per_s, &LatencyMetrics::input_tokens_per_s>,
       nullptr, nullptr, kCompared},
      {"output_tokens_per_s", "latency.output_tokens_per_s", "Output tokens/s", "tok/s", 1,
       kRelative, kHigherIsBetter, "output_tokens_per_second", 1,
       &Latency<&LatencyMetrics::has_output_tokens_per_s, &LatencyMetrics::output_tokens_per_s>,
       &OutputTokensPerS, nullptr, kCompared},
      {"ttft_degradation_median_pct", "latency.ttft_degradation_median_pct",
       "TTFT degradation median", "%", 1, kPoints, kLowerIsBetter, "", 1,
       &Latency<&LatencyMetrics::has_ttft_degradation_median_pct,
                &LatencyMetrics::ttft_degradation_median_pct>,
       nullptr, nullptr, kCompared},
      {"ttft_degradation_p95_pct", "latency.ttft_degradation_p95_pct", "TTFT degradation p95", "%",
       1, kPoints, kLowerIsBetter, "", 1,
       &Latency<&LatencyMetrics::has_ttft_degradation_p95_pct,
                &LatencyMetrics::ttft_degradation_p95_pct>,
       nullptr, nullptr, kCompared},
      {"local_hit_rate", "engine.local_hit_rate", "Local hit rate", "%", 100, kPoints,
       kHigherIsBetter, "", 1,
       &Engine<&EngineMetrics::has_local_hit_rate, &EngineMetrics::local_hit_rate>, nullptr,
       nullptr, kCompared},
      {"external_hit_rate", "engine.external_hit_rate", "External hit rate", "%", 100, kPoints,
       kHigherIsBetter, "", 1,
       &Engine<&EngineMetrics::has_external_hit_rate, &EngineMetrics::external_hit_rate>, nullptr,
       nullptr, kCompared},
      {"kv_cache_usage_mean", "engine.kv_cache_usage_mean", "KV cache usage mean", "%", 100,
       kPoints, kLowerIsBetter, "", 1,
       &Engine<&EngineMetrics::has_kv_cache_usage_mean, &EngineMetrics::kv_cache_usage_mean>,
       nullptr, nullptr, kCompared},
      {"kv_cache_usage_max", "engine.kv_cache_usage_max", "KV cache usage max", "%", 100, kPoints,
       kLowerIsBetter, "", 1,
       &Engine<&EngineMetrics::has_kv_cache_usage_max, &EngineMetrics::kv_cache_usage_max>, nullptr,
       nullptr, kCompared},
      // Lookup-based (offload_served.h): beside it, what offload served.
      {"lmcache_lookup_hit_rate", "lmcache.lookup_hit_rate", "LMCache lookup hit rate", "%", 100,
       kPoints, kHigherIsBetter, "", 1, &LookupHitRate, nullptr, nullptr, kCompared},
      {"offload_served_tokens", "engine.external_hit_tokens", "Offload served tokens", "tok", 1,
       kRelative, kHigherIsBetter, "", 1, &OffloadServedTokens, nullptr, nullptr, kCompared},
      {"offload_served_pct", "", "Offload served of prompt tokens", "%", 1, kPoints,
       kHigherIsBetter, "", 1, &OffloadServedPctOfPrompt, nullptr, nullptr, kCompared},
      {"sessions_achieved", "sessions.achieved", "Sessions achieved", "users", 1, kRelative,
       kHigherIsBetter, "", 1, &SessionsAchieved, nullptr, nullptr, kCompared},
      // The exported value is a ratio (0..1), as Prometheus' hit ratios are.
      {"cache_hit_pct", "", "Cached prompt tokens", "%", 1, kPoints, kHigherIsBetter,
       "prefix_cache_hit_ratio", 100, &CachedPromptPct, &CachedPromptPctOfRequests, nullptr,
       kNotCompared},
  };
  return metrics;
}

// The judged metrics' keys in the order diffs list them: RegressionMetric's order.
constexpr const char* kJudgedInOrder[] = {"ttft_p50_s",     "ttft_p95_s",   "ttft_p99_s",
                                          "ttft_mean_s",    "tpot_mean_s",  "output_tokens_per_s",
                                          "requests_per_s", "cache_hit_pct"};

[[noreturn]] void Broken(const char* what, absl::string_view key) {
  std::fprintf(stderr, "metric catalog: %s \"%.*s\"\n", what, static_cast<int>(key.size()),
               key.data());
  std::abort();
}

}  // namespace

const std::vector<MetricInfo>& AllMetrics() { return Table(); }

const MetricInfo* FindMetric(absl::string_view key) {
  for (const MetricInfo& metric : Table()) {
    if (key == metric.key) return &metric;
  }
  return nullptr;
}

const MetricInfo* FindMetricByField(absl::string_view field) {
  if (field.empty()) return nullptr;
  for (const MetricInfo& metric : Table()) {
    if (field == metric.field) return &metric;
  }
  return nullptr;
}

const MetricInfo& MetricNamed(absl::string_view key) {
  const MetricInfo* metric = FindMetric(key);
  if (metric == nullptr) Broken("no metric", key);
  return *metric;
}

const std::vector<const MetricInfo*>& JudgedMetrics() {
  static const std::vector<const MetricInfo*> judged = [] {
    std::vector<const MetricInfo*> metrics;
    for (const char* key : kJudgedInOrder) {
      const MetricInfo& metric = MetricNamed(key);
      if (metric.of_result == nullptr || metric.of_requests == nullptr ||
          *metric.prometheus_name == '\0') {
        Broken("a judged metric needs of_result, of_requests and a Prometheus name:", key);
      }
      metrics.push_back(&metric);
    }
    return metrics;
  }();
  return judged;
}

std::vector<const MetricInfo*> ComparedMetrics() {
  std::vector<const MetricInfo*> compared;
  for (const MetricInfo& metric : Table()) {
    if (metric.compared) compared.push_back(&metric);
  }
  return compared;
}

std::string ComparisonLabel(const MetricInfo& metric) {
  std::string label = metric.label;
  const bool acronym = label.size() > 1 && std::isupper(static_cast<unsigned char>(label[1])) != 0;
  if (!acronym && !label.empty()) {
    label[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(label[0])));
  }
  return label;
}

std::optional<double> ShownValue(const MetricInfo& metric, const v1::ScenarioResult& result) {
  if (metric.of_result == nullptr) return std::nullopt;
  const std::optional<double> value = metric.of_result(result);
  if (!value.has_value()) return std::nullopt;
  return *value * metric.shown_scale;
}

}  // namespace kvbench::results
