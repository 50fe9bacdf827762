// The analysis of a scheduled run on hand-made histories: change points found once (a known one
// near the same run is not new), the baseline chosen (pinned, or the runs since the last change
// point), alerts only for a regression (one the family-wise control keeps) or a bad change point of
// an alert metric, and the settings' checks.

#include "controller/analysis/run_analyzer.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/unit/controller/regression/synthetic_runs.h"

namespace kvbench::controller {
namespace {

using regression::testing::RunShape;
using regression::testing::SyntheticRows;

// A run of one GPU scenario at concurrency 2 on sim-a whose TTFT p95 is `p95_s`.
v1::Job Run(const std::string& id, double p95_s) {
  v1::Job job;
  job.set_job_id(id);
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  v1::ScenarioStatus* status = job.add_scenarios();
  status->mutable_scenario()->set_scenario_id("00-gpu-c2");
  status->mutable_scenario()->set_tier(v1::GPU);
  status->mutable_scenario()->set_concurrency(2);
  status->set_agent_id("sim-a");
  status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
  status->mutable_result()->mutable_latency()->set_ttft_p95_s(p95_s);
  return job;
}

RunHistory History(const std::vector<double>& p95s) {
  RunHistory history;
  history.schedule = "nightly";
  for (size_t i = 0; i + 1 < p95s.size(); ++i) {
    history.earlier.push_back(Run("run-" + std::to_string(i + 1), p95s[i]));
  }
  history.run = Run("run-" + std::to_string(p95s.size()), p95s.back());
  return history;
}

const std::vector<double> kStep = {100, 101, 99, 100, 102, 130, 131, 129, 130, 132};

TEST_CASE("A step in a history is a new change point once", "[analysis]") {
  RunHistory history = History(kStep);
  const std::vector<v1::ChangePoint> found = NewChangePoints(history, {}, absl::UnixEpoch());
  REQUIRE(found.size() == 1);
  CHECK(found[0].job_id() == "run-6");
  CHECK(found[0].metric() == "ttft_p95_s");
  CHECK(found[0].agent() == "sim-a");
  CHECK(found[0].bad_direction());  // slower
  CHECK(found[0].detected_by_job_id() == "run-10");
  // Known, or known one run off (a longer history can move the estimate): not new again.
  history.known_change_points = found;
  CHECK(NewChangePoints(history, {}, absl::UnixEpoch()).empty());
  history.known_change_points[0].set_job_id("run-7");
  CHECK(NewChangePoints(history, {}, absl::UnixEpoch()).empty());
  // A known point of another metric does not hide it.
  history.known_change_points[0].set_metric("ttft_p50_s");
  CHECK(NewChangePoints(history, {}, absl::UnixEpoch()).size() == 1);
}

TEST_CASE("The baseline is the pinned job or the runs since the last change point", "[analysis]") {
  RunHistory history = History(kStep);
  AnalysisSettings settings;
  settings.baseline_runs = 3;
  // No change point: the last three earlier runs.
  CHECK(BaselineJobIds(history, {}, settings) ==
        std::vector<std::string>{"run-7", "run-8", "run-9"});
  v1::ChangePoint point;
  point.set_job_id("run-8");
  CHECK(BaselineJobIds(history, {point}, settings) == std::vector<std::string>{"run-8", "run-9"});
  history.known_change_points = {point};
  CHECK(BaselineJobIds(history, {}, settings) == std::vector<std::string>{"run-8", "run-9"});
  // A failed run is no baseline.
  history.earlier[8].mutable_scenarios(0)->set_state(v1::SCENARIO_STATE_FAILED);
  CHECK(BaselineJobIds(history, {}, settings) == std::vector<std::string>{"run-8"});
  history.pinned_baseline = "golden";
  CHECK(BaselineJobIds(history, {}, settings) == std::vector<std::string>{"golden"});
  // The first run has none.
  CHECK(BaselineJobIds(History({100}), {}, settings).empty());
}

regression::JobRequests WithRows(const v1::Job& job, double ttft_s, uint64_t seed) {
  regression::JobRequests requests;
  requests.job = job;
  RunShape shape;
  shape.ttft_s = ttft_s;
  requests.rows["00-gpu-c2"] = SyntheticRows(shape, seed);
  return requests;
}

TEST_CASE("A regression of an alert metric raises one alert per metric", "[analysis]") {
  // Three earlier runs (what a verdict needs to know how whole runs vary), then a slower one.
  RunHistory history = History({0.2, 0.21, 0.19, 0.3});
  std::vector<regression::JobRequests> baseline;
  for (size_t i = 0; i < 3; ++i) baseline.push_back(WithRows(history.earlier[i], 0.2, 1 + i));
  const regression::JobRequests slower = WithRows(history.run, 0.3, 9);
  AnalysisSettings settings;
  settings.diff.resamples = 300;
  settings.alert_metrics = {regression::RegressionMetric::kTtftP50,
                            regression::RegressionMetric::kTpotMean};
  const v1::RunAnalysis analysis =
      AnalyzeRun(history, baseline, slower, {}, settings, absl::FromUnixMillis(7));
  CHECK(analysis.baseline_kind() == "segment");
  CHECK(analysis.baseline_jobs_size() == 3);
  REQUIRE(analysis.scenarios_size() == 1);
  CHECK(analysis.scenarios(0).metrics_size() == regression::kRegressionMetricCount);
  // TTFT p50 regressed (an alert metric); TTFT p95 too, but it raises nothing here; TPOT did not.
  REQUIRE(analysis.alerts_size() == 1);
  const v1::RegressionAlert& alert = analysis.alerts(0);
  CHECK(alert.kind() == v1::ALERT_DIFF_REGRESSION);
  CHECK(alert.alert_id() == "run-4/diff/gpu-c2@sim-a/ttft_p50_s");
  CHECK(alert.metric() == "ttft_p50_s");
  CHECK(alert.scenario_id() == "00-gpu-c2");
  CHECK(alert.schedule() == "nightly");
  CHECK(alert.created_unix_ms() == 7);
  CHECK(alert.low() > 0);
  CHECK(alert.change() > 30);
  CHECK(alert.baseline() == "3 run(s) since the last change point");
  // The alert metrics (2 tests: one scenario) are one family, the other 6 metrics another.
  REQUIRE(analysis.families_size() == 2);
  CHECK(analysis.families(0).metrics_size() == 2);
  CHECK(analysis.families(0).tests() == 2);
  CHECK(analysis.families(1).tests() == 6);
  CHECK(alert.has_adjusted_p_value());
  CHECK(alert.adjusted_p_value() <= 0.05);
  CHECK(analysis.scenarios(0).metrics(0).adjusted_p_worse() == alert.adjusted_p_value());
  // Without an earlier run there is nothing to compare with.
  const v1::RunAnalysis first =
      AnalyzeRun(History({0.2}), {}, baseline[0], {}, settings, absl::UnixEpoch());
  CHECK(first.baseline_kind() == "none");
  CHECK(first.alerts().empty());
}

TEST_CASE("A regression the family-wise control withholds raises no alert", "[analysis]") {
  // TTFT 10% slower (seed 18): TTFT p50 alone says regression (p = 0.027 against the band), but
  // not after Holm over the 4 alert metrics of the run's one scenario.
  RunHistory history = History({0.2, 0.21, 0.19, 0.22});
  std::vector<regression::JobRequests> baseline;
  for (size_t i = 0; i < 3; ++i) baseline.push_back(WithRows(history.earlier[i], 0.2, 1 + i));
  AnalysisSettings settings;
  settings.diff.resamples = 300;
  const v1::RunAnalysis analysis = AnalyzeRun(history, baseline, WithRows(history.run, 0.22, 18),
                                              {}, settings, absl::UnixEpoch());
  CHECK(analysis.alerts().empty());
  const v1::MetricChange& p50 = analysis.scenarios(0).metrics(0);
  CHECK(p50.metric() == "ttft_p50_s");
  CHECK(p50.verdict() == "inconclusive");
  CHECK(p50.p_worse() < 0.05);
  CHECK(p50.adjusted_p_worse() > 0.05);
  CHECK(p50.note().find("would be regression by its own 95% interval, but the family-wise control "
                        "withheld it: Holm over the family's 4 tests (TTFT p50, TTFT p95, TTFT "
                        "p99, Output tokens/s × 1 scenario)") == 0);
  CHECK(analysis.families(0).withheld() == 1);
}

TEST_CASE("Too few earlier runs withhold a verdict", "[analysis]") {
  // One earlier run: the same slowdown, but how whole runs vary is not known yet.
  RunHistory history = History({0.2, 0.3});
  AnalysisSettings settings;
  settings.diff.resamples = 300;
  const v1::RunAnalysis analysis =
      AnalyzeRun(history, {WithRows(history.earlier[0], 0.2, 1)}, WithRows(history.run, 0.3, 9), {},
                 settings, absl::UnixEpoch());
  CHECK(analysis.alerts().empty());
  REQUIRE(analysis.scenarios_size() == 1);
  const v1::MetricChange& p50 = analysis.scenarios(0).metrics(0);
  CHECK(p50.metric() == "ttft_p50_s");
  CHECK(p50.verdict() == "inconclusive");
  CHECK(p50.note() == "would be regression, but only 1 run(s) show how whole runs vary (3 needed)");
}

TEST_CASE("A bad change point of an alert metric raises an alert and a good one does not",
          "[analysis]") {
  AnalysisSettings settings;
  RunHistory slower = History(kStep);
  std::vector<v1::ChangePoint> points = NewChangePoints(slower, settings, absl::UnixEpoch());
  v1::RunAnalysis analysis =
      AnalyzeRun(slower, {}, WithRows(slower.run, 0.2, 1), points, settings, absl::UnixEpoch());
  REQUIRE(analysis.alerts_size() == 1);
  CHECK(analysis.alerts(0).kind() == v1::ALERT_CHANGE_POINT);
  CHECK(analysis.alerts(0).alert_id() == "run-10/change_point/gpu-c2@sim-a/ttft_p95_s/run-6");
  CHECK(analysis.new_change_points_size() == 1);
  std::vector<double> faster = kStep;
  for (double& value : faster) value = 1000.0 / value;
  RunHistory better = History(faster);
  points = NewChangePoints(better, settings, absl::UnixEpoch());
  REQUIRE(points.size() == 1);
  CHECK_FALSE(points[0].bad_direction());
  analysis =
      AnalyzeRun(better, {}, WithRows(better.run, 0.2, 1), points, settings, absl::UnixEpoch());
  CHECK(analysis.alerts().empty());
  CHECK(analysis.new_change_points_size() == 1);
}

TEST_CASE("Regression settings out of range are named", "[analysis]") {
  v1::RegressionConfig config;
  CHECK(AnalysisSettingsFromConfig(config).ok());
  config.set_band_pct(0);
  CHECK(AnalysisSettingsFromConfig(config).status().message() ==
        "regression.band_pct is 0; it must be in (0, 100]");
  config.clear_band_pct();
  config.add_alert_metrics("ttft_p42_s");
  CHECK(AnalysisSettingsFromConfig(config).status().message().find(
            "regression.alert_metrics names \"ttft_p42_s\"") == 0);
  config.clear_alert_metrics();
  config.set_change_point_alpha(0.001);
  absl::StatusOr<AnalysisSettings> settings = AnalysisSettingsFromConfig(config);
  REQUIRE(settings.ok());
  CHECK(settings->change_points.permutations == 4999);
}

}  // namespace
}  // namespace kvbench::controller
