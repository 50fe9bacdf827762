#include "controller/regression/job_diff.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

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
              {{"00-gpu-c2@x", v1::GPU, 2, "x", "x", 0.3},
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
  CHECK(P95(diff.scenarios[0]).verdict == DiffVerdict::kRegression);  // 0.2 s -> 0.3 s
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
