#include "controller/regression/job_diff.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/unit/controller/regression/synthetic_runs.h"

namespace kvbench::regression {
namespace {

using testing::RunShape;
using testing::SyntheticRows;

struct ScenarioSpec {
  std::string id;
  v1::Tier tier;
  int concurrency;
  std::string ran_on;
  std::string pinned = "";
  double ttft_s = 0.2;
  v1::ScenarioState state = v1::SCENARIO_STATE_SUCCEEDED;
};

JobRequests MakeJob(const std::string& job_id, const std::vector<ScenarioSpec>& scenarios,
                    uint64_t seed) {
  JobRequests job;
  job.job.set_job_id(job_id);
  for (const ScenarioSpec& spec : scenarios) {
    v1::ScenarioStatus* status = job.job.add_scenarios();
    status->mutable_scenario()->set_scenario_id(spec.id);
    status->mutable_scenario()->set_tier(spec.tier);
    status->mutable_scenario()->set_concurrency(spec.concurrency);
    status->mutable_scenario()->set_agent_id(spec.pinned);
    status->set_agent_id(spec.ran_on);
    status->set_state(spec.state);
    if (spec.state == v1::SCENARIO_STATE_SUCCEEDED) status->mutable_result();
    RunShape shape;
    shape.ttft_s = spec.ttft_s;
    job.rows[spec.id] = SyntheticRows(shape, seed++);
  }
  return job;
}

const MetricDiff& P95(const ScenarioDiff& diff) {
  return diff.metrics[static_cast<int>(RegressionMetric::kTtftP95)];
}

TEST_CASE("Scenarios match on tier concurrency and agent", "[regression]") {
  const JobRequests a = MakeJob("job-a",
                                {{"00-gpu-c2@x", v1::GPU, 2, "x", "x"},
                                 {"01-cpu-ram-c2@x", v1::CPU_RAM, 2, "x", "x"},
                                 {"02-gpu-c2@y", v1::GPU, 2, "y", "y"}},
                                1);
  const JobRequests b =
      MakeJob("job-b",
              {{"00-gpu-c2@x", v1::GPU, 2, "x", "x", 0.4},
               {"01-cpu-ram-c2@x", v1::CPU_RAM, 2, "x", "x"},
               {"02-gpu-c2@y", v1::GPU, 2, "y", "y", 0.2, v1::SCENARIO_STATE_FAILED},
               {"03-nvme-c2@x", v1::NVME, 2, "x", "x"}},
              10);
  // Earlier runs that varied a little as a whole: enough to allow a verdict.
  const RunSpread steady(kMinRunsForVerdict);
  const JobDiff diff = DiffJobs({a}, {b}, {}, {{"gpu c2 @x", steady}, {"cpu-ram c2 @x", steady}});
  REQUIRE(diff.scenarios.size() == 2);
  CHECK(diff.caveat.empty());
  CHECK(diff.scenarios[0].tier == v1::GPU);
  CHECK(diff.scenarios[0].agent == "x");
  CHECK(diff.scenarios[0].before_runs == std::vector<std::string>{"job-a/00-gpu-c2@x"});
  CHECK(diff.scenarios[0].after_runs == std::vector<std::string>{"job-b/00-gpu-c2@x"});
  // 0.2 s -> 0.4 s: large enough to stand in a family of 16 tests (2 scenarios x 8 metrics).
  CHECK(P95(diff.scenarios[0]).verdict == DiffVerdict::kRegression);
  CHECK(diff.scenarios[1].tier == v1::CPU_RAM);
  CHECK(P95(diff.scenarios[1]).verdict != DiffVerdict::kRegression);
  CHECK(diff.unmatched == std::vector<std::string>{"before: gpu c2 @y", "after: nvme c2 @x"});
}

TEST_CASE("A job not fanned out matches across agents with a note", "[regression]") {
  const JobRequests a = MakeJob("a", {{"00-gpu-c4", v1::GPU, 4, "sim-a"}}, 1);
  const JobRequests b = MakeJob("b", {{"00-gpu-c4", v1::GPU, 4, "sim-b"}}, 2);
  const JobDiff diff = DiffJobs({a}, {b}, {});
  REQUIRE(diff.scenarios.size() == 1);
  CHECK(diff.scenarios[0].agent.empty());
  CHECK(diff.scenarios[0].note == "ran on sim-a before, sim-b after");
  CHECK(diff.unmatched.empty());
  CHECK(ScenarioKeyText(v1::CPU_RAM, 4, "") == "cpu-ram c4");
}

TEST_CASE("A baseline of several jobs pools their users", "[regression]") {
  const JobRequests a1 = MakeJob("a1", {{"00-gpu-c2", v1::GPU, 2, "x"}}, 1);
  const JobRequests a2 = MakeJob("a2", {{"00-gpu-c2", v1::GPU, 2, "x"}}, 2);
  const JobRequests b = MakeJob("b", {{"00-gpu-c2", v1::GPU, 2, "x"}}, 3);
  const JobDiff diff = DiffJobs({a1, a2}, {b}, {});
  REQUIRE(diff.scenarios.size() == 1);
  CHECK(diff.scenarios[0].before_runs.size() == 2);
  // The pooled estimate is the metric over both runs' requests together.
  std::vector<RunSample> pooled = {GroupByUser("1", a1.rows.at("00-gpu-c2")),
                                   GroupByUser("2", a2.rows.at("00-gpu-c2"))};
  CHECK(*P95(diff.scenarios[0]).before ==
        Approx(*ComputeMetrics(pooled)[static_cast<int>(RegressionMetric::kTtftP95)]));
}

}  // namespace
}  // namespace kvbench::regression

namespace kvbench::regression {
namespace {

TEST_CASE("Without runs that show how whole runs vary a verdict is withheld", "[regression]") {
  const JobRequests a = MakeJob("a", {{"00-gpu-c2", v1::GPU, 2, "x"}}, 1);
  const JobRequests b = MakeJob("b", {{"00-gpu-c2", v1::GPU, 2, "x", "", 0.3}}, 2);
  const JobDiff alone = DiffJobs({a}, {b}, {});
  CHECK(alone.caveat.find("verdicts withheld") == 0);
  CHECK(P95(alone.scenarios[0]).verdict == DiffVerdict::kInconclusive);
  CHECK(P95(alone.scenarios[0]).note ==
        "would be regression, but only 0 run(s) show how whole runs vary (3 needed)");
  // The spread of jobs comes from their results, one entry per run of each scenario.
  std::vector<v1::Job> runs(3, a.job);
  const SpreadByScenario spread = SpreadOfJobs({&runs[0], &runs[1], &runs[2]});
  REQUIRE(spread.count("gpu c2 @x") == 1);
  CHECK(spread.at("gpu c2 @x").size() == 3);
  const JobDiff judged = DiffJobs({a}, {b}, {}, spread);
  CHECK(judged.caveat.empty());
  CHECK(P95(judged.scenarios[0]).verdict == DiffVerdict::kRegression);
}

}  // namespace
}  // namespace kvbench::regression

namespace kvbench::regression {
namespace {

// The demo's matrix: 3 tiers x concurrency 2 and 16, so 48 metric x scenario tests.
std::vector<ScenarioSpec> DemoMatrix(double gpu_c16_ttft_s = 0.2) {
  std::vector<ScenarioSpec> specs;
  for (int concurrency : {2, 16}) {
    for (v1::Tier tier : {v1::GPU, v1::CPU_RAM, v1::NVME}) {
      const double ttft = tier == v1::GPU && concurrency == 16 ? gpu_c16_ttft_s : 0.2;
      specs.push_back({absl::StrCat(specs.size()), tier, concurrency, "x", "", ttft});
    }
  }
  return specs;
}

// Three baseline jobs and one after job, all of seeds from `seed`, diffed as kvctl diff does.
JobDiff PooledDiff(uint64_t seed, double after_gpu_c16_ttft_s) {
  std::vector<JobRequests> baseline;
  std::vector<const v1::Job*> jobs;
  for (uint64_t b = 0; b < 3; ++b) {
    baseline.push_back(MakeJob(absl::StrCat("a", b), DemoMatrix(), seed * 1000 + b * 100));
  }
  for (const JobRequests& job : baseline) jobs.push_back(&job.job);
  const JobRequests after = MakeJob("b", DemoMatrix(after_gpu_c16_ttft_s), seed * 1000 + 900);
  return DiffJobs(baseline, {after}, {}, SpreadOfJobs(jobs));
}

int CountVerdicts(const JobDiff& diff, DiffVerdict verdict) {
  int count = 0;
  for (const ScenarioDiff& scenario : diff.scenarios) {
    for (const MetricDiff& metric : scenario.metrics) count += metric.verdict == verdict ? 1 : 0;
  }
  return count;
}

TEST_CASE("An A/A diff's lone per-test regression is withheld by the family-wise control",
          "[regression]") {
  // Seed 21: of the 48 tests, only CPU_RAM c16's TTFT p50 (+18%, interval [+1.7%, +36.6%]) is a
  // regression by its own interval; Holm over the 48 does not keep it.
  const JobDiff diff = PooledDiff(21, 0.2);
  REQUIRE(diff.families.size() == 1);
  const TestFamily& family = diff.families[0];
  CHECK(family.tests == 48);
  CHECK(family.scenarios == 6);
  CHECK(family.metrics.size() == AllRegressionMetrics().size());
  CHECK(family.alpha == Approx(0.05));
  CHECK(family.withheld == 1);
  CHECK(CountVerdicts(diff, DiffVerdict::kRegression) == 0);
  CHECK(CountVerdicts(diff, DiffVerdict::kImprovement) == 0);
  const ScenarioDiff& cpu_c16 = diff.scenarios[4];
  REQUIRE(cpu_c16.tier == v1::CPU_RAM);
  REQUIRE(cpu_c16.concurrency == 16);
  const MetricDiff& p50 = cpu_c16.metrics[static_cast<size_t>(RegressionMetric::kTtftP50)];
  CHECK(p50.verdict == DiffVerdict::kInconclusive);
  CHECK(*p50.low > 0);  // the interval shown is still the test's own, and excludes 0
  CHECK(*p50.p_worse < 0.05);
  CHECK(*p50.adjusted_p_worse > 0.05);
  CHECK(p50.note.find(
            "would be regression by its own 95% interval, but the family-wise control "
            "withheld it: Holm over the family's 48 tests (every metric × 6 scenarios)") == 0);
  // Every test of the family got its adjusted p-values, never below its own.
  for (const ScenarioDiff& scenario : diff.scenarios) {
    for (const MetricDiff& metric : scenario.metrics) {
      REQUIRE(metric.adjusted_p_worse.has_value());
      CHECK(*metric.adjusted_p_worse >= *metric.p_worse);
      CHECK(*metric.adjusted_p_better >= *metric.p_better);
    }
  }
}

TEST_CASE("A large regression stands in a family of 48 tests", "[regression]") {
  // GPU c16's TTFT doubled: its TTFT p50, p95, p99 and mean are regressions after Holm.
  const JobDiff diff = PooledDiff(21, 0.4);
  const ScenarioDiff& gpu_c16 = diff.scenarios[3];
  REQUIRE(gpu_c16.tier == v1::GPU);
  REQUIRE(gpu_c16.concurrency == 16);
  for (RegressionMetric metric : {RegressionMetric::kTtftP50, RegressionMetric::kTtftP95,
                                  RegressionMetric::kTtftP99, RegressionMetric::kTtftMean}) {
    const MetricDiff& test = gpu_c16.metrics[static_cast<size_t>(metric)];
    INFO(InfoOf(metric).key << " adjusted p " << *test.adjusted_p_worse);
    CHECK(test.verdict == DiffVerdict::kRegression);
    CHECK(*test.adjusted_p_worse <= 0.05);
  }
  CHECK(CountVerdicts(diff, DiffVerdict::kRegression) == 4);
}

TEST_CASE("The controller's alert metrics are a family of their own", "[regression]") {
  // Two families: the 4 alert metrics over 6 scenarios, then the other 4 (never in two).
  const std::vector<RegressionMetric> alert = {
      RegressionMetric::kTtftP50, RegressionMetric::kTtftP95, RegressionMetric::kTtftP99,
      RegressionMetric::kOutputTokensPerS, RegressionMetric::kTtftP95};
  std::vector<JobRequests> baseline = {MakeJob("a", DemoMatrix(), 1)};
  const JobRequests after = MakeJob("b", DemoMatrix(), 2);
  const JobDiff diff = DiffJobs(baseline, {after}, {}, {}, {alert});
  REQUIRE(diff.families.size() == 2);
  CHECK(diff.families[0].metrics.size() == 4);
  CHECK(diff.families[0].tests == 24);
  CHECK(diff.families[1].metrics == std::vector<RegressionMetric>{RegressionMetric::kTtftMean,
                                                                  RegressionMetric::kTpotMean,
                                                                  RegressionMetric::kRequestsPerS,
                                                                  RegressionMetric::kCacheHitPct});
  CHECK(diff.families[1].tests == 24);
  // A test's adjusted p-value is over its own family: 24 tests, not 48.
  const MetricDiff& p95 =
      diff.scenarios[0].metrics[static_cast<size_t>(RegressionMetric::kTtftP95)];
  CHECK(*p95.adjusted_p_worse <= std::min(1.0, 24 * *p95.p_worse) + 1e-12);
}

TEST_CASE("A family too big for the resamples gets more of them", "[regression]") {
  // 48 tests at alpha 0.05 need 1/(n+1) <= 0.05/48/2: 1,919 resamples, under the default 2,000.
  CHECK(PooledDiff(3, 0.2).options.resamples == kDefaultResamples);
  // 8 tests (one scenario) at alpha 0.05 need 319: more than the 100 asked for.
  DiffOptions few;
  few.resamples = 100;
  const JobDiff diff = DiffJobs({MakeJob("a", {{"0", v1::GPU, 2, "x"}}, 1)},
                                {MakeJob("b", {{"0", v1::GPU, 2, "x"}}, 2)}, few);
  CHECK(diff.options.resamples == 319);
}

}  // namespace
}  // namespace kvbench::regression
