// The metric catalog as users see it: each metric's names, unit, scale and direction (what every
// table, diff, alert, gauge and SLO prints), which views list it and in what order, and how its
// value is read from a result or computed from request rows.

#include "controller/results/metric_catalog.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

namespace kvbench::results {
namespace {

std::vector<std::string> KeysOf(const std::vector<const MetricInfo*>& metrics) {
  std::vector<std::string> keys;
  for (const MetricInfo* metric : metrics) keys.push_back(metric->key);
  return keys;
}

TEST_CASE("Metric catalog: every metric's names, unit, scale and direction", "[metric_catalog]") {
  struct Row {
    const char* key;
    const char* field;
    const char* label;
    const char* comparison_label;
    const char* unit;
    double shown_scale;
    ChangeKind change_kind;
    bool higher_is_better;
    const char* prometheus_name;
  };
  constexpr ChangeKind kPct = ChangeKind::kRelativePct;
  constexpr ChangeKind kPp = ChangeKind::kPercentagePoints;
  const Row rows[] = {
      {"ttft_mean_s", "latency.ttft_mean_s", "TTFT mean", "TTFT mean", "ms", 1e3, kPct, false,
       "ttft_mean_seconds"},
      {"ttft_p50_s", "latency.ttft_p50_s", "TTFT p50", "TTFT p50", "ms", 1e3, kPct, false,
       "ttft_p50_seconds"},
      {"ttft_p90_s", "latency.ttft_p90_s", "TTFT p90", "TTFT p90", "ms", 1e3, kPct, false, ""},
      {"ttft_p95_s", "latency.ttft_p95_s", "TTFT p95", "TTFT p95", "ms", 1e3, kPct, false,
       "ttft_p95_seconds"},
      {"ttft_p99_s", "latency.ttft_p99_s", "TTFT p99", "TTFT p99", "ms", 1e3, kPct, false,
       "ttft_p99_seconds"},
      {"tpot_mean_s", "latency.tpot_mean_s", "TPOT mean", "TPOT mean", "ms", 1e3, kPct, false,
       "tpot_mean_seconds"},
      {"requests_per_s", "latency.requests_per_s", "Requests/s", "requests/s", "req/s", 1, kPct,
       true, "requests_per_second"},
      {"input_tokens_per_s", "latency.input_tokens_per_s", "Input tokens/s", "input tokens/s",
       "tok/s", 1, kPct, true, ""},
      {"output_tokens_per_s", "latency.output_tokens_per_s", "Output tokens/s", "output tokens/s",
       "tok/s", 1, kPct, true, "output_tokens_per_second"},
      {"ttft_degradation_median_pct", "latency.ttft_degradation_median_pct",
       "TTFT degradation median", "TTFT degradation median", "%", 1, kPp, false, ""},
      {"local_hit_rate", "engine.local_hit_rate", "Local hit rate", "local hit rate", "%", 100, kPp,
       true, ""},
      {"kv_cache_usage_max", "engine.kv_cache_usage_max", "KV cache usage max",
       "KV cache usage max", "%", 100, kPp, false, ""},
      {"lmcache_lookup_hit_rate", "lmcache.lookup_hit_rate", "LMCache lookup hit rate",
       "LMCache lookup hit rate", "%", 100, kPp, true, ""},
      {"offload_served_tokens", "engine.external_hit_tokens", "Offload served tokens",
       "offload served tokens", "tok", 1, kPct, true, ""},
      {"offload_served_pct", "", "Offload served of prompt tokens",
       "offload served of prompt tokens", "%", 1, kPp, true, ""},
      {"sessions_achieved", "sessions.achieved", "Sessions achieved", "sessions achieved", "users",
       1, kPct, true, ""},
      {"cache_hit_pct", "", "Cached prompt tokens", "Cached prompt tokens", "%", 1, kPp, true,
       "prefix_cache_hit_ratio"},
  };
  for (const Row& row : rows) {
    INFO(row.key);
    const MetricInfo* metric = FindMetric(row.key);
    REQUIRE(metric != nullptr);
    CHECK(std::string(metric->field) == row.field);
    CHECK(std::string(metric->label) == row.label);
    if (metric->compared) CHECK(ComparisonLabel(*metric) == row.comparison_label);
    CHECK(std::string(metric->unit) == row.unit);
    CHECK(metric->shown_scale == row.shown_scale);
    CHECK(metric->change_kind == row.change_kind);
    CHECK(metric->higher_is_better == row.higher_is_better);
    CHECK(std::string(metric->prometheus_name) == row.prometheus_name);
    if (*row.field != '\0') CHECK(FindMetricByField(row.field) == metric);
  }
  CHECK(FindMetric("ttft_p42_s") == nullptr);
  CHECK(FindMetricByField("latency.duration_s") == nullptr);
  CHECK(FindMetricByField("") == nullptr);
}

TEST_CASE("Metric catalog: keys and result fields name one metric each", "[metric_catalog]") {
  std::set<std::string> keys, fields;
  for (const MetricInfo& metric : AllMetrics()) {
    INFO(metric.key);
    CHECK(keys.insert(metric.key).second);
    if (*metric.field != '\0') CHECK(fields.insert(metric.field).second);
    CHECK(*metric.label != '\0');
    CHECK(metric.shown_scale > 0);
    CHECK(metric.prometheus_divisor > 0);
    CHECK(metric.of_result != nullptr);
    // An SLO is judged from the bootstrap of request rows.
    if (metric.slo_target != nullptr) CHECK(metric.of_requests != nullptr);
  }
}

TEST_CASE("Metric catalog: the views and their order", "[metric_catalog]") {
  // The order diffs list the judged metrics in (regression::RegressionMetric numbers them).
  CHECK(KeysOf(JudgedMetrics()) == std::vector<std::string>{"ttft_p50_s", "ttft_p95_s",
                                                            "ttft_p99_s", "ttft_mean_s",
                                                            "tpot_mean_s", "output_tokens_per_s",
                                                            "requests_per_s", "cache_hit_pct"});
  for (const MetricInfo* metric : JudgedMetrics()) {
    INFO(metric->key);
    CHECK(metric->of_requests != nullptr);
    CHECK(*metric->prometheus_name != '\0');
  }
  // The tier comparison's rows, top to bottom.
  std::vector<std::string> labels;
  for (const MetricInfo* metric : ComparedMetrics()) labels.push_back(ComparisonLabel(*metric));
  // clang-format off: one row a line, as the table prints them
  const std::vector<std::string> rows = {
      "TTFT mean",
      "TTFT p50",
      "TTFT p90",
      "TTFT p95",
      "TTFT p99",
      "TPOT mean",
      "requests/s",
      "input tokens/s",
      "output tokens/s",
      "TTFT degradation median",
      "TTFT degradation p95",
      "local hit rate",
      "external hit rate",
      "KV cache usage mean",
      "KV cache usage max",
      "LMCache lookup hit rate",
      "offload served tokens",
      "offload served of prompt tokens",
      "sessions achieved",
  };
  // clang-format on
  CHECK(labels == rows);
  // A job spec's SLO fields.
  std::vector<std::string> slo;
  for (const MetricInfo& metric : AllMetrics()) {
    if (metric.slo_target != nullptr) slo.push_back(metric.key);
  }
  CHECK(slo == std::vector<std::string>{"ttft_p95_s", "ttft_p99_s", "tpot_mean_s"});
  v1::Slo spec;
  spec.set_ttft_p99_s(2);
  CHECK_FALSE(MetricNamed("ttft_p95_s").slo_target(spec).has_value());
  CHECK(MetricNamed("ttft_p99_s").slo_target(spec) == 2);
}

TEST_CASE("Metric catalog: values of a result, simulated time shown", "[metric_catalog]") {
  v1::ScenarioResult result;
  result.mutable_latency()->set_ttft_p95_s(0.5);
  result.mutable_latency()->set_requests_per_s(10);
  result.mutable_latency()->set_prompt_tokens_total(400);
  result.mutable_engine()->set_local_hit_rate(0.25);
  result.mutable_sessions()->set_achieved(16);
  struct Row {
    const char* key;
    std::optional<double> shown;
  };
  const Row observed[] = {{"ttft_p95_s", 500},       {"requests_per_s", 10},
                          {"ttft_p50_s", {}},        {"local_hit_rate", 25},
                          {"sessions_achieved", 16}, {"cache_hit_pct", {}},
                          {"external_hit_rate", {}}, {"lmcache_lookup_hit_rate", {}}};
  for (const Row& row : observed) {
    INFO(row.key);
    CHECK(ShownValue(MetricNamed(row.key), result) == row.shown);
  }
  // Cached tokens reported: their share of the prompt tokens, in %.
  result.mutable_latency()->set_cached_tokens_total(100);
  CHECK(ShownValue(MetricNamed("cache_hit_pct"), result) == 25);
  // A simulated engine's times and rates are its simulated latency's; token counts stay.
  result.set_sim_time_scale(0.25);
  result.mutable_simulated_latency()->set_ttft_p95_s(2);
  result.mutable_simulated_latency()->set_requests_per_s(2.5);
  CHECK(ShownValue(MetricNamed("ttft_p95_s"), result) == 2000);
  CHECK(ShownValue(MetricNamed("requests_per_s"), result) == 2.5);
  CHECK(ShownValue(MetricNamed("cache_hit_pct"), result) == 25);
}

TEST_CASE("Metric catalog: values computed from request rows", "[metric_catalog]") {
  PooledRequests pooled;
  for (int i = 1; i <= 100; ++i) pooled.ttft_s.push_back(i / 100.0);  // ascending
  pooled.tpot_s = {0.02, 0.04};
  pooled.requests = 100;
  pooled.output_tokens = 5000;
  pooled.prompt_tokens = 800;
  pooled.duration_s = 50;
  struct Row {
    const char* key;
    std::optional<double> value;
  };
  const Row rows[] = {{"ttft_mean_s", 0.505},
                      {"tpot_mean_s", 0.03},
                      {"output_tokens_per_s", 100},
                      {"requests_per_s", 2},
                      {"cache_hit_pct", std::nullopt}};
  for (const Row& row : rows) {
    INFO(row.key);
    const std::optional<double> value = MetricNamed(row.key).of_requests(pooled);
    REQUIRE(value.has_value() == row.value.has_value());
    if (value) CHECK(*value == Approx(*row.value));
  }
  CHECK(*MetricNamed("ttft_p50_s").of_requests(pooled) <
        *MetricNamed("ttft_p95_s").of_requests(pooled));
  pooled.reported_cached = true;
  pooled.cached_tokens = 200;
  CHECK(MetricNamed("cache_hit_pct").of_requests(pooled) == 25);
  // No window, no rates; no TTFT sample, no percentile.
  pooled.duration_s = 0;
  CHECK_FALSE(MetricNamed("requests_per_s").of_requests(pooled).has_value());
  CHECK_FALSE(MetricNamed("ttft_p99_s").of_requests(PooledRequests{}).has_value());
}

}  // namespace
}  // namespace kvbench::results
