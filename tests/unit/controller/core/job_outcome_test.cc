// One table of scenario outcomes (job_outcome_table.h) drives the places a job's outcome is
// decided and asserts they agree: the pure rule (controller/core/job_outcome.h) and the
// controller's JobManager (through its events and CancelJob) here; `kvctl run`, which embeds the
// same JobManager, in tests/component/controller/kvctl/kvctl_run_outcome_test.cc.

#include "controller/core/job_outcome.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "tests/unit/controller/core/job_manager_harness.h"
#include "tests/unit/controller/core/job_outcome_table.h"

namespace kvbench::controller {
namespace {

using testing::kCancelled;
using testing::kFailed;
using testing::kFailure;
using testing::kOk;
using testing::Row;
using testing::Table;

struct ControllerRun {
  v1::Job job;
  std::map<std::string, v1::ScenarioState> ended_as;  // by scenario id, as the row assigned them
};

// The controller runs the row: one agent takes the scenarios one by one and ends each as the row
// says; at the first cancelled one (reported running) the user cancels the job.
ControllerRun RunOnController(const Row& row) {
  ControllerRun run;
  JobManagerHarness h;
  const std::string job_id = h.Submit(SimSpec({v1::GPU}, {1, 2, 3}));
  FakeAgentChannel channel;
  h.Register(&channel, Registration("a", false));
  int64_t seq = 1;
  for (v1::ScenarioState state : row.states) {
    REQUIRE(!channel.Assignments().empty());
    const v1::Assignment assignment = channel.Assignments().back();
    run.ended_as[assignment.scenario().scenario_id()] = state;
    h.Send(&channel, StateEvent("a", assignment, seq++, v1::SCENARIO_STATE_RUNNING));
    if (state == kCancelled) {
      v1::CancelJobRequest request;
      request.set_job_id(job_id);
      REQUIRE(h.manager->CancelJob(request).ok());
      h.loop.RunUntilIdle();
      break;
    }
    if (state == kOk) h.Send(&channel, ResultEvent("a", assignment, seq++));
    v1::Event end = StateEvent("a", assignment, seq++, state);
    if (state == kFailed) end.mutable_state_change()->set_reason(kFailure);
    h.Send(&channel, end);
  }
  run.job = h.Job(job_id);
  return run;
}

TEST_CASE("one rule decides a job's outcome for the controller", "[job_outcome]") {
  for (const Row& row : Table()) {
    INFO(row.name);
    // The pure rule.
    std::vector<ScenarioOutcome> scenarios;
    for (size_t i = 0; i < row.states.size(); ++i) {
      scenarios.push_back({"s" + std::to_string(i), row.states[i],
                           row.states[i] == kFailed ? kFailure : "cancelled by the user"});
    }
    const JobOutcome decided = DecideJobOutcome(scenarios);
    CHECK(decided.state == row.job_state);

    // The controller, scenario by scenario.
    const ControllerRun run = RunOnController(row);
    const v1::Job& controller = run.job;
    CHECK(controller.state() == row.job_state);
    if (row.job_state == v1::JOB_STATE_FAILED) {
      CHECK_THAT(decided.error, Catch::Contains(kFailure));
      CHECK_THAT(controller.error(), Catch::StartsWith("scenario ") && Catch::Contains(kFailure));
    } else if (row.job_state == v1::JOB_STATE_CANCELLED) {
      CHECK(!controller.error().empty());
    } else {
      CHECK(controller.error().empty());
    }
  }
}

TEST_CASE("a job with a scenario not yet ended is still running", "[job_outcome]") {
  const JobOutcome outcome = DecideJobOutcome(
      {{"a", v1::SCENARIO_STATE_FAILED, "boom"}, {"b", v1::SCENARIO_STATE_RUNNING, ""}});
  CHECK(outcome.state == v1::JOB_STATE_RUNNING);
  CHECK(outcome.error.empty());
}

TEST_CASE("the first failed scenario in the job's order names the job's error", "[job_outcome]") {
  const JobOutcome outcome = DecideJobOutcome({{"a", v1::SCENARIO_STATE_CANCELLED, "stop"},
                                               {"b", v1::SCENARIO_STATE_FAILED, "first"},
                                               {"c", v1::SCENARIO_STATE_FAILED, "second"}});
  CHECK(outcome.state == v1::JOB_STATE_FAILED);
  CHECK(outcome.error == "scenario b failed: first");
}

}  // namespace
}  // namespace kvbench::controller
