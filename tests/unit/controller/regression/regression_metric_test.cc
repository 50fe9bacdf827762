#include "controller/regression/regression_metric.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "agent/results/scenario_metrics.h"
#include "agent/scenario/request_chunks.h"
#include "tests/unit/agent/results/replay_fixture.h"

namespace kvbench::regression {
namespace {

std::vector<v1::RequestRow> Rows(const std::vector<runner::RequestRecord>& records) {
  std::vector<v1::RequestRow> rows;
  for (const auto& record : records) rows.push_back(agent::ToRequestRow(record));
  return rows;
}

double Value(const MetricValues& values, RegressionMetric metric) {
  const auto& value = values[static_cast<int>(metric)];
  REQUIRE(value.has_value());
  return *value;
}

// The point estimates of a diff are the very numbers result.json reports: recomputed here from
// the same records with the agent's own ComputeLatencyMetrics.
void CheckEqualToAgentMetrics(const std::vector<runner::RequestRecord>& records) {
  const v1::LatencyMetrics agent = agent::results::ComputeLatencyMetrics(records);
  const MetricValues ours = ComputeMetrics({GroupByUser("run", Rows(records))});
  CHECK(Value(ours, RegressionMetric::kTtftP50) == Approx(agent.ttft_p50_s()));
  CHECK(Value(ours, RegressionMetric::kTtftP95) == Approx(agent.ttft_p95_s()));
  CHECK(Value(ours, RegressionMetric::kTtftP99) == Approx(agent.ttft_p99_s()));
  CHECK(Value(ours, RegressionMetric::kTtftMean) == Approx(agent.ttft_mean_s()));
  CHECK(Value(ours, RegressionMetric::kTpotMean) == Approx(agent.tpot_mean_s()));
  CHECK(Value(ours, RegressionMetric::kOutputTokensPerS) == Approx(agent.output_tokens_per_s()));
  CHECK(Value(ours, RegressionMetric::kRequestsPerS) == Approx(agent.requests_per_s()));
}

TEST_CASE("Regression metrics equal the agent's metrics of the same records", "[regression]") {
  CheckEqualToAgentMetrics(agent::results::testing::TwoUsersThreeRounds());

  // 300 random records of 20 users, some failed, some with one output token.
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<runner::RequestRecord> records;
  for (int i = 0; i < 300; ++i) {
    const std::string user = "u" + std::to_string(i % 20);
    const double scheduled = unit(random) * 100;
    if (unit(random) < 0.05) {
      records.push_back(agent::results::testing::Failed(user, i / 20 + 1, scheduled,
                                                        scheduled + 0.01, scheduled + 3, 500));
      continue;
    }
    const double first = scheduled + 0.05 + unit(random);
    const int output = unit(random) < 0.1 ? 1 : 2 + static_cast<int>(unit(random) * 200);
    records.push_back(agent::results::testing::Ok(user, i / 20 + 1, scheduled, scheduled + 0.01,
                                                  first, first + output * 0.02, 800, output));
  }
  CheckEqualToAgentMetrics(records);
}

TEST_CASE("Regression metrics of a simulated run are in simulated seconds", "[regression]") {
  // sim_time_scale 0.05: 20 simulated seconds per observed one.
  const auto rows = Rows(agent::results::testing::TwoUsersThreeRounds());
  const MetricValues observed = ComputeMetrics({GroupByUser("run", rows)});
  const MetricValues simulated = ComputeMetrics({GroupByUser("run", rows, 0.05)});
  CHECK(Value(simulated, RegressionMetric::kTtftP95) ==
        Approx(Value(observed, RegressionMetric::kTtftP95) * 20));
  CHECK(Value(simulated, RegressionMetric::kTpotMean) ==
        Approx(Value(observed, RegressionMetric::kTpotMean) * 20));
  CHECK(Value(simulated, RegressionMetric::kRequestsPerS) ==
        Approx(Value(observed, RegressionMetric::kRequestsPerS) / 20));
}

TEST_CASE("Cached prompt tokens share and runs pooled", "[regression]") {
  std::vector<runner::RequestRecord> records = agent::results::testing::TwoUsersThreeRounds();
  // No record reports cached_tokens: not measured, never 0.
  CHECK_FALSE(ComputeMetrics({GroupByUser(
      "run", Rows(records))})[static_cast<int>(RegressionMetric::kCacheHitPct)]
                  .has_value());
  records[0].cached_tokens = 50;   // of 100
  records[2].cached_tokens = 150;  // of 200; the failed request's 300 prompt tokens do not count
  const RunSample run = GroupByUser("run", Rows(records));
  // Successful prompt tokens: 100 + 100 + 200 + 200 + 300 = 900.
  CHECK(Value(ComputeMetrics({run}), RegressionMetric::kCacheHitPct) == Approx(200.0 / 900 * 100));
  // Two copies pooled: the same shares, rates over both windows.
  const MetricValues pooled = ComputeMetrics({run, run});
  CHECK(Value(pooled, RegressionMetric::kCacheHitPct) == Approx(200.0 / 900 * 100));
  CHECK(Value(pooled, RegressionMetric::kRequestsPerS) == Approx(10.0 / 16));
  CHECK(run.users.size() == 2);
  CHECK(run.duration_s == Approx(8.0));
}

TEST_CASE("Regression metrics are named by stable keys", "[regression]") {
  for (const RegressionMetricInfo& info : AllRegressionMetrics()) {
    CHECK(RegressionMetricFromKey(info.key) == info.metric);
    CHECK(&InfoOf(info.metric) == &info);
  }
  CHECK_FALSE(RegressionMetricFromKey("ttft_p42_s").has_value());
}

TEST_CASE("Each named regression metric is the catalog's metric of its key", "[regression]") {
  const std::pair<RegressionMetric, const char*> names[] = {
      {RegressionMetric::kTtftP50, "ttft_p50_s"},
      {RegressionMetric::kTtftP95, "ttft_p95_s"},
      {RegressionMetric::kTtftP99, "ttft_p99_s"},
      {RegressionMetric::kTtftMean, "ttft_mean_s"},
      {RegressionMetric::kTpotMean, "tpot_mean_s"},
      {RegressionMetric::kOutputTokensPerS, "output_tokens_per_s"},
      {RegressionMetric::kRequestsPerS, "requests_per_s"},
      {RegressionMetric::kCacheHitPct, "cache_hit_pct"}};
  for (const auto& [metric, key] : names) {
    INFO(key);
    CHECK(std::string(InfoOf(metric).key) == key);
  }
}

}  // namespace
}  // namespace kvbench::regression
