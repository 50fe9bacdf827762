// One table of scenario outcomes drives the three places a job's outcome is decided and asserts
// they agree: the pure rule (controller/core/job_outcome.h), the controller's JobManager (through
// its events and CancelJob) and `kvctl run`'s recording (controller/kvctl/local_job_record.h).

#include "controller/core/job_outcome.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "controller/kvctl/local_job_record.h"
#include "tests/unit/job_manager/job_manager_harness.h"

namespace kvbench::controller {
namespace {

constexpr v1::ScenarioState kOk = v1::SCENARIO_STATE_SUCCEEDED;
constexpr v1::ScenarioState kFailed = v1::SCENARIO_STATE_FAILED;
// Caught by the cancel: the first one cancelled while it ran, the rest before they started.
constexpr v1::ScenarioState kCancelled = v1::SCENARIO_STATE_CANCELLED;
constexpr char kFailure[] = "replica-0 never became healthy";

struct Row {
  std::string name;
  std::vector<v1::ScenarioState> states;  // in the order the scenarios run; cancelled ones last
  v1::JobState job_state;
};

std::vector<Row> Table() {
  return {
      {"every scenario succeeded", {kOk, kOk, kOk}, v1::JOB_STATE_SUCCEEDED},
      {"one scenario failed", {kOk, kFailed, kOk}, v1::JOB_STATE_FAILED},
      {"cancelled during the first scenario",
       {kCancelled, kCancelled, kCancelled},
       v1::JOB_STATE_CANCELLED},
      {"cancelled after one succeeded", {kOk, kCancelled, kCancelled}, v1::JOB_STATE_CANCELLED},
      {"cancelled during the last scenario", {kOk, kOk, kCancelled}, v1::JOB_STATE_CANCELLED},
      // The case the two used to disagree on: a failure is not hidden by a later cancel.
      {"cancelled after one failed", {kFailed, kCancelled, kCancelled}, v1::JOB_STATE_FAILED},
      {"cancelled after one succeeded and one failed",
       {kOk, kFailed, kCancelled},
       v1::JOB_STATE_FAILED},
  };
}

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

// kvctl run records the same scenarios (the controller's plan) ending the same way; those the
// controller never assigned were not started when the cancel came.
v1::Job LocalRunJob(const ControllerRun& run) {
  client::JobPlan plan;
  plan.spec = run.job.spec();
  for (const v1::ScenarioStatus& status : run.job.scenarios()) {
    plan.scenarios.push_back(status.scenario());
  }
  std::vector<agent::LocalScenarioOutcome> outcomes;
  for (const v1::Scenario& scenario : plan.scenarios) {
    agent::LocalScenarioOutcome outcome;
    outcome.scenario = scenario;
    auto it = run.ended_as.find(scenario.scenario_id());
    if (it == run.ended_as.end()) {
      outcome.status = absl::CancelledError("not started: the run was cancelled");
    } else if (it->second == kFailed) {
      outcome.status = absl::UnavailableError(kFailure);
    } else if (it->second == kCancelled) {
      outcome.status = absl::CancelledError("cancelled during the replay; output written");
    }
    outcomes.push_back(std::move(outcome));
  }
  v1::Job job = kvctl::LocalJob("local-job", plan, absl::Now());
  kvctl::RecordOutcomes(outcomes, absl::Now(), &job);
  return job;
}

TEST_CASE("one rule decides a job's outcome for the controller and kvctl run", "[job_outcome]") {
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

    // The controller and kvctl run, scenario by scenario.
    const ControllerRun run = RunOnController(row);
    const v1::Job& controller = run.job;
    const v1::Job local = LocalRunJob(run);
    CHECK(controller.state() == row.job_state);
    CHECK(local.state() == row.job_state);
    REQUIRE(controller.scenarios_size() == local.scenarios_size());
    for (int i = 0; i < controller.scenarios_size(); ++i) {
      CHECK(controller.scenarios(i).state() == local.scenarios(i).state());
    }
    if (row.job_state == v1::JOB_STATE_FAILED) {
      CHECK_THAT(decided.error, Catch::Contains(kFailure));
      CHECK(controller.error() == local.error());
      CHECK_THAT(local.error(), Catch::StartsWith("scenario ") && Catch::Contains(kFailure));
    } else if (row.job_state == v1::JOB_STATE_CANCELLED) {
      CHECK(!controller.error().empty());
      CHECK(!local.error().empty());
    } else {
      CHECK(local.error().empty());
      CHECK(controller.error().empty());
    }
    // kvctl run's exit follows the job: 0, 7 (cancelled) or the failure.
    const absl::Status exit = kvctl::RunExitStatus(local);
    CHECK(exit.ok() == (row.job_state == v1::JOB_STATE_SUCCEEDED));
    CHECK(absl::IsCancelled(exit) == (row.job_state == v1::JOB_STATE_CANCELLED));
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
