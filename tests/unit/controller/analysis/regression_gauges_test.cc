// The /metrics view of scheduled runs: the latest run's values per scenario and metric (a share
// as a ratio), its regressions, its changes against the baseline, and a deleted schedule's series
// gone (else its regression and staleness would alert forever).

#include "controller/analysis/regression_gauges.h"

#include <prometheus/registry.h>

#include <catch2/catch.hpp>
#include <map>
#include <string>

namespace kvbench::controller {
namespace {

// name{label=value,...} -> value, over every gauge the registry holds.
std::map<std::string, double> Collect(prometheus::Registry& registry) {
  std::map<std::string, double> values;
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    for (const prometheus::ClientMetric& metric : family.metric) {
      std::string key = family.name + "{";
      for (const prometheus::ClientMetric::Label& label : metric.label) {
        key += label.name + "=" + label.value + ",";
      }
      values[key + "}"] = metric.gauge.value;
    }
  }
  return values;
}

TEST_CASE("The latest run of a schedule is exported and a deleted one removed", "[analysis]") {
  prometheus::Registry registry;
  RegressionGauges gauges(&registry);
  v1::Job job;
  job.set_job_id("nightly-1");
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  job.set_end_unix_ms(1700000000500);
  v1::ScenarioStatus* status = job.add_scenarios();
  status->mutable_scenario()->set_tier(v1::CPU_RAM);
  status->mutable_scenario()->set_concurrency(16);
  status->set_agent_id("sim-a");
  status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
  v1::LatencyMetrics* latency = status->mutable_result()->mutable_latency();
  latency->set_ttft_p95_s(0.8);
  latency->set_prompt_tokens_total(1000);
  latency->set_cached_tokens_total(600);
  v1::RunAnalysis analysis;
  v1::RegressionAlert* alert = analysis.add_alerts();
  alert->set_agent("sim-a");
  alert->set_tier(v1::CPU_RAM);
  alert->set_concurrency(16);
  alert->set_metric("ttft_p95_s");
  v1::ScenarioChange* change = analysis.add_scenarios();
  change->set_agent("sim-a");
  change->set_tier(v1::CPU_RAM);
  change->set_concurrency(16);
  v1::MetricChange* p95 = change->add_metrics();
  p95->set_metric("ttft_p95_s");
  p95->set_change(12.5);
  gauges.SetLatestRun("nightly", job, analysis);

  std::map<std::string, double> values = Collect(registry);
  // Labels come sorted by name from prometheus-cpp.
  const std::string labels_p95 =
      "{agent=sim-a,concurrency=16,metric=ttft_p95_seconds,schedule=nightly,tier=cpu_ram,}";
  CHECK(values.at("kvbench_schedule_result" + labels_p95) == 0.8);
  CHECK(values.at("kvbench_schedule_regression" + labels_p95) == 1);
  CHECK(values.at("kvbench_schedule_change_ratio" + labels_p95) == Approx(0.125));
  CHECK(values.at("kvbench_schedule_result{agent=sim-a,concurrency=16,metric=prefix_cache_hit_"
                  "ratio,schedule=nightly,tier=cpu_ram,}") == Approx(0.6));
  CHECK(values.at("kvbench_schedule_regression{agent=sim-a,concurrency=16,metric=ttft_p50_"
                  "seconds,schedule=nightly,tier=cpu_ram,}") == 0);
  CHECK(values.at("kvbench_schedule_last_run_timestamp_seconds{schedule=nightly,}") ==
        Approx(1700000000.5));
  CHECK(values.at("kvbench_schedule_last_run_succeeded{schedule=nightly,}") == 1);

  gauges.RetainSchedules({"nightly"});
  CHECK(Collect(registry).size() == values.size());
  gauges.RetainSchedules({});
  for (const auto& [key, value] : Collect(registry)) {
    CHECK(key.find("schedule=nightly") == std::string::npos);
  }
}

TEST_CASE("A scheduled capacity search's answer is a gauge per tier and bound", "[analysis]") {
  prometheus::Registry registry;
  RegressionGauges gauges(&registry);
  v1::Job job;
  job.set_job_id("nightly-2");
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  v1::CapacityReport* report = job.mutable_capacity();
  report->set_slo("TTFT p95 ≤ 1 s");
  v1::TierCapacity* gpu = report->add_tiers();
  gpu->set_tier(v1::GPU);
  gpu->set_finished(true);
  gpu->set_capacity(9);
  gpu->set_low(7);
  gpu->set_high(10);
  v1::TierCapacity* searching = report->add_tiers();  // unfinished: no gauge
  searching->set_tier(v1::NVME);
  gauges.SetLatestRun("nightly", job, v1::RunAnalysis());
  const std::map<std::string, double> values = Collect(registry);
  const std::string name = "kvbench_schedule_capacity_users";
  CHECK(values.at(name + "{bound=capacity,schedule=nightly,slo=TTFT p95 ≤ 1 s,tier=gpu,}") == 9);
  CHECK(values.at(name + "{bound=low,schedule=nightly,slo=TTFT p95 ≤ 1 s,tier=gpu,}") == 7);
  CHECK(values.at(name + "{bound=high,schedule=nightly,slo=TTFT p95 ≤ 1 s,tier=gpu,}") == 10);
  CHECK(values.count(name + "{bound=capacity,schedule=nightly,slo=TTFT p95 ≤ 1 s,tier=nvme,}") ==
        0);
  gauges.RemoveSchedule("nightly");
  CHECK(Collect(registry).count(name +
                                "{bound=low,schedule=nightly,slo=TTFT p95 ≤ 1 s,tier=gpu,}") == 0);
}

}  // namespace
}  // namespace kvbench::controller
