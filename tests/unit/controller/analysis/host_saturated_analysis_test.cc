// The analysis of a scheduled run whose host was saturated: not measured, no alert,
// no point of the history's change points, not pooled in a later run's baseline.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "controller/analysis/run_analyzer.h"
#include "tests/unit/controller/regression/synthetic_runs.h"

namespace kvbench::controller {
namespace {

// A run of one GPU scenario at c2 on sim-a: TTFT p95 `p95_s`, the host `cpu_pct` busy.
v1::Job BusyHostRun(const std::string& id, double p95_s, double cpu_pct) {
  v1::Job job;
  job.set_job_id(id);
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  v1::ScenarioStatus* status = job.add_scenarios();
  status->mutable_scenario()->set_scenario_id("00-gpu-c2");
  status->mutable_scenario()->set_tier(v1::GPU);
  status->mutable_scenario()->set_concurrency(2);
  status->set_agent_id("sim-a");
  status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
  v1::ScenarioResult* result = status->mutable_result();
  result->set_scenario_id("00-gpu-c2");
  result->mutable_latency()->set_ttft_p95_s(p95_s);
  result->mutable_telemetry()->set_cpu_utilization_pct_mean(cpu_pct);
  return job;
}

regression::JobRequests BusyHostRows(const v1::Job& job, double ttft_s, uint64_t seed) {
  regression::JobRequests requests;
  requests.job = job;
  regression::testing::RunShape shape;
  shape.ttft_s = ttft_s;
  requests.rows["00-gpu-c2"] = regression::testing::SyntheticRows(shape, seed);
  return requests;
}

TEST_CASE("A run on a saturated host is not measured and raises no alert", "[analysis][host]") {
  RunHistory history;
  history.schedule = "nightly";
  std::vector<regression::JobRequests> baseline;
  for (int i = 0; i < 3; ++i) {
    history.earlier.push_back(BusyHostRun("run-" + std::to_string(i + 1), 0.3, 40));
    baseline.push_back(BusyHostRows(history.earlier.back(), 0.2, 1 + i));
  }
  history.run = BusyHostRun("run-4", 0.45, 99);  // 50% slower, and its host saturated
  AnalysisSettings settings;
  settings.diff.resamples = 300;
  settings.alert_metrics = {regression::RegressionMetric::kTtftP50};
  const v1::RunAnalysis analysis = AnalyzeRun(history, baseline, BusyHostRows(history.run, 0.3, 9),
                                              {}, settings, absl::UnixEpoch());
  CHECK(analysis.alerts().empty());
  REQUIRE(analysis.scenarios_size() == 1);
  CHECK(analysis.scenarios(0).note() ==
        "not measured, the host was saturated: run-4/00-gpu-c2: host CPU busy 99% (limit 90%) "
        "during the replay; measured latencies include the host's queueing");
  for (const v1::MetricChange& metric : analysis.scenarios(0).metrics()) {
    CHECK(metric.verdict() == "not_measured");
  }
  // The same run on a quiet host raises the alert.
  history.run = BusyHostRun("run-4", 0.45, 40);
  const v1::RunAnalysis quiet = AnalyzeRun(history, baseline, BusyHostRows(history.run, 0.3, 9), {},
                                           settings, absl::UnixEpoch());
  CHECK(quiet.alerts_size() == 1);
}

TEST_CASE("Saturated runs are no points of the change-point history nor of a baseline",
          "[analysis][host]") {
  // A step from 100 to 130 ms, but every slow run had a saturated host: no change in the system.
  const std::vector<double> p95s = {100, 101, 99, 100, 102, 130, 131, 129, 130, 132};
  RunHistory history;
  history.schedule = "nightly";
  for (size_t i = 0; i < p95s.size(); ++i) {
    v1::Job run = BusyHostRun("run-" + std::to_string(i + 1), p95s[i], i >= 5 ? 97 : 30);
    if (i + 1 < p95s.size()) {
      history.earlier.push_back(run);
    } else {
      history.run = run;
    }
  }
  CHECK(NewChangePoints(history, {}, absl::UnixEpoch()).empty());
  // A baseline of three runs, one of them saturated: the diff pools the other two.
  std::vector<regression::JobRequests> baseline = {BusyHostRows(history.earlier[3], 0.2, 1),
                                                   BusyHostRows(history.earlier[4], 0.2, 2),
                                                   BusyHostRows(history.earlier[5], 0.2, 3)};
  history.run = BusyHostRun("run-10", 0.3, 30);
  AnalysisSettings settings;
  settings.diff.resamples = 300;
  const v1::RunAnalysis analysis = AnalyzeRun(history, baseline, BusyHostRows(history.run, 0.2, 9),
                                              {}, settings, absl::UnixEpoch());
  REQUIRE(analysis.scenarios_size() == 1);
  CHECK(analysis.scenarios(0).before_runs_size() == 2);
  CHECK_THAT(analysis.scenarios(0).note(),
             Catch::StartsWith("left out, the host was saturated: run-6/00-gpu-c2: host CPU busy "
                               "97% (limit 90%)"));
}

}  // namespace
}  // namespace kvbench::controller
