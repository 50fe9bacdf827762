// JobTable: the PENDING and active-by-agent indexes follow every state change, so a scheduling
// round and an agent's registration read them instead of walking every job.

#include "controller/core/job_table.h"

#include <catch2/catch.hpp>

namespace kvbench::controller {
namespace {

JobRecord MakeJob(const std::string& job_id, std::vector<v1::ScenarioState> states,
                  const std::string& agent_id = "") {
  JobRecord job;
  job.job_id = job_id;
  for (size_t i = 0; i < states.size(); ++i) {
    ScenarioRecord& scenario = job.scenarios.emplace_back();
    scenario.scenario.set_job_id(job_id);
    scenario.scenario.set_scenario_id("s" + std::to_string(i));
    scenario.state = states[i];
    if (states[i] != v1::SCENARIO_STATE_PENDING) scenario.agent_id = agent_id;
  }
  return job;
}

TEST_CASE("a job's scenarios are indexed by state when added", "[job_table]") {
  JobTable table;
  table.Add(MakeJob("done", {v1::SCENARIO_STATE_SUCCEEDED, v1::SCENARIO_STATE_FAILED}, "a"));
  table.Add(MakeJob("mixed", {v1::SCENARIO_STATE_PENDING, v1::SCENARIO_STATE_RUNNING}, "a"));
  table.Add(MakeJob("queued", {v1::SCENARIO_STATE_PENDING}));

  CHECK(table.pending() == std::set<ScenarioRef>{{"mixed", 0}, {"queued", 0}});
  CHECK(table.ActiveOn("a") == std::vector<ScenarioRef>{{"mixed", 1}});
  CHECK(table.ActiveOn("b").empty());
  CHECK(table.SubmitSeq("done") == 0);
  CHECK(table.SubmitSeq("queued") == 2);
  CHECK(table.SubmitSeq("nope") == -1);
  CHECK(table.submit_order() == std::vector<std::string>{"done", "mixed", "queued"});
}

TEST_CASE("moving a scenario keeps both indexes", "[job_table]") {
  JobTable table;
  JobRecord& job = table.Add(MakeJob("j", {v1::SCENARIO_STATE_PENDING}));
  ScenarioRecord& scenario = job.scenarios[0];

  table.Move(job, scenario, v1::SCENARIO_STATE_ASSIGNED, "a");
  CHECK(table.pending().empty());
  CHECK(table.ActiveOn("a") == std::vector<ScenarioRef>{{"j", 0}});

  table.Move(job, scenario, v1::SCENARIO_STATE_RUNNING, "a");
  CHECK(table.ActiveOn("a").size() == 1);

  // Lost and requeued: pending again, no longer on its agent.
  table.Move(job, scenario, v1::SCENARIO_STATE_PENDING, "a");
  CHECK(table.pending().size() == 1);
  CHECK(table.ActiveOn("a").empty());

  // Reassigned elsewhere, then ended: in neither index.
  table.Move(job, scenario, v1::SCENARIO_STATE_ASSIGNED, "b");
  CHECK(table.ActiveOn("b").size() == 1);
  table.Move(job, scenario, v1::SCENARIO_STATE_SUCCEEDED, "b");
  CHECK(table.pending().empty());
  CHECK(table.ActiveOn("b").empty());
  CHECK(table.AllActive().empty());
  CHECK(scenario.state == v1::SCENARIO_STATE_SUCCEEDED);
}

TEST_CASE("scenarios are found by id and by reference", "[job_table]") {
  JobTable table;
  JobRecord& job =
      table.Add(MakeJob("j", {v1::SCENARIO_STATE_PENDING, v1::SCENARIO_STATE_PENDING}));
  CHECK(JobTable::FindScenario(job, "s1") == &job.scenarios[1]);
  CHECK(JobTable::FindScenario(job, "s9") == nullptr);
  CHECK(table.Resolve({"j", 1}) == &job.scenarios[1]);
  CHECK(table.Resolve({"j", 2}) == nullptr);
  CHECK(table.Resolve({"x", 0}) == nullptr);
  v1::Progress progress;
  progress.set_requests_done(7);
  table.SetProgress("j", "s1", progress);
  REQUIRE(table.Progress("j", "s1") != nullptr);
  CHECK(table.Progress("j", "s1")->requests_done() == 7);
  CHECK(table.Progress("j", "s0") == nullptr);
}

}  // namespace
}  // namespace kvbench::controller
