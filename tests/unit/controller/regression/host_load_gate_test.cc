// `kvctl diff` with a scenario whose host was saturated: not measured when a side has
// no other run, its note saying which run and which figure, and never a regression however slow
// it was; left out of a pooled side that has others.

#include "controller/regression/host_load_gate.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "controller/regression/job_diff.h"
#include "tests/unit/controller/regression/synthetic_runs.h"

namespace kvbench::regression {
namespace {

// A job of one GPU scenario at c8 whose TTFT is `ttft_s`; with `cpu_pct` its result says how busy
// the host was.
JobRequests GateJob(const std::string& job_id, double ttft_s, uint64_t seed,
                    std::optional<double> cpu_pct = std::nullopt) {
  JobRequests job;
  job.job.set_job_id(job_id);
  v1::ScenarioStatus* status = job.job.add_scenarios();
  status->mutable_scenario()->set_scenario_id("00-gpu-c8");
  status->mutable_scenario()->set_tier(v1::GPU);
  status->mutable_scenario()->set_concurrency(8);
  status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
  v1::ScenarioResult* result = status->mutable_result();
  result->set_scenario_id("00-gpu-c8");
  result->mutable_latency()->set_ttft_p50_s(ttft_s);
  result->mutable_latency()->set_ttft_p95_s(ttft_s * 1.5);
  if (cpu_pct) result->mutable_telemetry()->set_cpu_utilization_pct_mean(*cpu_pct);
  testing::RunShape shape;
  shape.ttft_s = ttft_s;
  job.rows["00-gpu-c8"] = testing::SyntheticRows(shape, seed);
  return job;
}

// How whole runs vary, from three quiet runs: enough for a verdict (kMinRunsForVerdict).
SpreadByScenario QuietSpread() {
  std::vector<JobRequests> runs = {GateJob("a", 0.2, 1), GateJob("b", 0.21, 2),
                                   GateJob("c", 0.19, 3)};
  std::vector<const v1::Job*> jobs;
  for (const JobRequests& run : runs) jobs.push_back(&run.job);
  return SpreadOfJobs(jobs);
}

TEST_CASE("A diff whose after run saturated its host is not measured", "[regression][host]") {
  DiffOptions options;
  options.resamples = 300;
  const std::vector<JobRequests> before = {GateJob("base", 0.2, 1)};
  // Quiet, 50% slower: measured (a verdict, whichever it is).
  const JobDiff quiet = DiffJobs(before, {GateJob("after", 0.3, 9)}, options, QuietSpread());
  REQUIRE(quiet.scenarios.size() == 1);
  CHECK(quiet.scenarios[0].metrics[0].verdict != DiffVerdict::kNotMeasured);
  CHECK(quiet.scenarios[0].note.empty());
  // The same run on a saturated host: no verdict at all.
  const JobDiff busy = DiffJobs(before, {GateJob("after", 0.3, 9, 98.0)}, options, QuietSpread());
  REQUIRE(busy.scenarios.size() == 1);
  const ScenarioDiff& diff = busy.scenarios[0];
  CHECK(diff.note ==
        "not measured, the host was saturated: after/00-gpu-c8: host CPU busy 98% (limit 90%) "
        "during the replay; measured latencies include the host's queueing");
  for (const MetricDiff& metric : diff.metrics) {
    CHECK(metric.verdict == DiffVerdict::kNotMeasured);
    CHECK(metric.note == "host saturated");
    CHECK(metric.change.has_value() == quiet.scenarios[0]
                                           .metrics[&metric - &diff.metrics[0]]
                                           .change.has_value());  // the figures stay shown
  }
  // A saturated baseline run says nothing either.
  const JobDiff busy_before =
      DiffJobs({GateJob("base", 0.2, 1, 95.0)}, {GateJob("after", 0.3, 9)}, options, QuietSpread());
  CHECK(busy_before.scenarios[0].metrics[0].verdict == DiffVerdict::kNotMeasured);
}

TEST_CASE("A baseline pools the runs whose host kept up and names those it left out",
          "[regression][host]") {
  DiffOptions options;
  options.resamples = 300;
  const JobDiff diff = DiffJobs({GateJob("a", 0.2, 1), GateJob("b", 0.2, 2, 99.0)},
                                {GateJob("after", 0.2, 9)}, options, QuietSpread());
  REQUIRE(diff.scenarios.size() == 1);
  const ScenarioDiff& scenario = diff.scenarios[0];
  CHECK(scenario.before_runs == std::vector<std::string>{"a/00-gpu-c8"});
  CHECK(scenario.note ==
        "left out, the host was saturated: b/00-gpu-c8: host CPU busy 99% (limit 90%) during the "
        "replay; measured latencies include the host's queueing");
  CHECK(scenario.metrics[0].verdict != DiffVerdict::kNotMeasured);
  // The spread of whole runs ignores it too.
  const std::vector<JobRequests> jobs = {GateJob("a", 0.2, 1), GateJob("b", 0.2, 2, 99.0)};
  const std::vector<const v1::Job*> both = {&jobs[0].job, &jobs[1].job};
  CHECK(SpreadOfJobs(both).at("gpu c8").size() == 1);
  CHECK(HostSaturationOf(jobs[0].job.scenarios(0)).empty());
  CHECK_FALSE(HostSaturationOf(jobs[1].job.scenarios(0)).empty());
}

}  // namespace
}  // namespace kvbench::regression
