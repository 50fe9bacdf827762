// FAN_OUT_EACH: a job selecting agents by label runs its whole matrix on each
// matching agent the controller knows, each scenario pinned to its agent and compared only with
// its agent's; an agent that is down when its part is due is waited for placement.agent_wait_s,
// then its part fails naming why while the other agents' parts go on.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "controller/core/agent_registry.h"
#include "controller/core/job_state_machine.h"
#include "controller/core/scenario_dispatcher.h"
#include "controller/store/sql_store.h"
#include "tests/fakes/fake_clock.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/controller/core/fake_agent_channel.h"
#include "tests/unit/controller/core/job_manager_harness.h"

namespace kvbench::controller {
namespace {

using testing::FakeAgentChannel;

v1::AgentCapabilities Agent(const std::string& id, const std::string& gpu) {
  v1::AgentCapabilities capabilities = Registration(id, false).capabilities();
  (*capabilities.mutable_labels())["gpu"] = gpu;
  (*capabilities.mutable_labels())["zone"] = "eu";
  return capabilities;
}

struct Fleet {
  Fleet() : dispatcher(&jobs, &agents, /*fail_unplaceable=*/false) {
    agents.Attach(&channel_a, Agent("h200-a", "h200"), absl::ZeroDuration(), clock.Now());
    agents.Attach(&channel_c, Agent("a100-c", "a100"), absl::ZeroDuration(), clock.Now());
    // h200-b is known (the store remembers it) but down.
    agents.Remember(Agent("h200-b", "h200"), absl::ZeroDuration());
  }

  v1::JobSpec Spec() const {
    v1::JobSpec spec = SimSpec({v1::GPU, v1::CPU_RAM}, {2});
    (*spec.mutable_placement()->mutable_agent_labels())["gpu"] = "h200";
    spec.mutable_placement()->set_fan_out(v1::FAN_OUT_EACH);
    spec.mutable_placement()->set_agent_wait_s(600);
    return spec;
  }

  kvbench::testing::TempDir dir;
  std::unique_ptr<SqlStore> store = *SqlStore::OpenSqlite(dir.path() + "/controller.db");
  kvbench::testing::FakeClock clock;
  AgentRegistry agents;
  JobStateMachine jobs{
      store.get(), &clock, /*max_scenario_attempts=*/2, /*only_job_id=*/"",
      JobStateHooks{[](const std::string&) {}, [] {}, [](const std::string&, const std::string&) {},
                    [](const std::string&, const v1::ScenarioAttempt&, const std::string&) {},
                    [this] {
                      std::vector<v1::AgentCapabilities> known;
                      for (const v1::AgentView& view : agents.Views()) {
                        known.push_back(view.capabilities());
                      }
                      return known;
                    }}};
  FakeAgentChannel channel_a;
  FakeAgentChannel channel_c;
  ScenarioDispatcher dispatcher;
};

TEST_CASE("a fanned-out job runs its matrix on each agent with the labels", "[fan_out]") {
  Fleet fleet;
  v1::SubmitJobRequest request;
  *request.mutable_spec() = fleet.Spec();
  absl::StatusOr<v1::SubmitJobResponse> submitted = fleet.jobs.Submit(request);
  REQUIRE(submitted.ok());
  std::vector<std::string> ids;
  std::vector<std::string> groups;
  for (const v1::Scenario& scenario : submitted->scenarios()) {
    ids.push_back(scenario.scenario_id());
    groups.push_back(scenario.comparison_group() + " on " + scenario.agent_id());
  }
  CHECK(ids == std::vector<std::string>{"00-gpu-c2@h200-a", "01-cpu-ram-c2@h200-a",
                                        "02-gpu-c2@h200-b", "03-cpu-ram-c2@h200-b"});
  CHECK(groups == std::vector<std::string>{"c2@h200-a on h200-a", "c2@h200-a on h200-a",
                                           "c2@h200-b on h200-b", "c2@h200-b on h200-b"});

  // h200-a takes its first scenario; h200-b is down, so its part waits without a verdict, and
  // a100-c, idle, never gets one.
  CHECK(fleet.dispatcher.RunRound().assigned == 1);
  REQUIRE(fleet.channel_a.Assignments().size() == 1);
  CHECK(fleet.channel_a.Assignments()[0].scenario().scenario_id() == "00-gpu-c2@h200-a");
  CHECK(fleet.channel_c.Assignments().empty());
  const JobRecord& job = *fleet.jobs.table().Find(submitted->job_id());
  CHECK(job.scenarios[2].state == v1::SCENARIO_STATE_PENDING);
  CHECK(job.scenarios[2].reason.empty());

  // Within the wait nothing fails; past it, h200-b's part fails naming why, h200-a's goes on.
  fleet.clock.AdvanceTime(absl::Seconds(599));
  CHECK(fleet.dispatcher.FailOverdueAgentWaits(fleet.clock.Now()) == 0);
  fleet.clock.AdvanceTime(absl::Seconds(1));
  CHECK(fleet.dispatcher.FailOverdueAgentWaits(fleet.clock.Now()) == 2);
  for (int index : {2, 3}) {
    CHECK(job.scenarios[index].state == v1::SCENARIO_STATE_FAILED);
    CHECK_THAT(job.scenarios[index].reason,
               Catch::Contains("agent h200-b was down (not connected) for 600 s after the job was "
                               "submitted (placement.agent_wait_s)"));
  }
  CHECK(job.scenarios[0].state == v1::SCENARIO_STATE_ASSIGNED);
  CHECK(job.scenarios[1].state == v1::SCENARIO_STATE_PENDING);
  CHECK(job.state == v1::JOB_STATE_RUNNING);
}

TEST_CASE("a placement no known agent satisfies is refused at submit naming the agents",
          "[fan_out]") {
  Fleet fleet;
  v1::SubmitJobRequest request;
  *request.mutable_spec() = fleet.Spec();
  (*request.mutable_spec()->mutable_placement()->mutable_agent_labels())["gpu"] = "mi300x";
  absl::StatusOr<v1::SubmitJobResponse> submitted = fleet.jobs.Submit(request);
  REQUIRE_FALSE(submitted.ok());
  CHECK(submitted.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(submitted.status().message()) ==
        "placement: no agent the controller knows has the labels gpu=mi300x (known: a100-c "
        "(gpu=a100,zone=eu), h200-a (gpu=h200,zone=eu), h200-b (gpu=h200,zone=eu))");
}

TEST_CASE("labels without fan-out place the sweep once on matching agents only", "[fan_out]") {
  Fleet fleet;
  v1::SubmitJobRequest request;
  *request.mutable_spec() = fleet.Spec();
  request.mutable_spec()->mutable_placement()->set_fan_out(v1::FAN_OUT_ONE);
  (*request.mutable_spec()->mutable_placement()->mutable_agent_labels())["gpu"] = "a100";
  absl::StatusOr<v1::SubmitJobResponse> submitted = fleet.jobs.Submit(request);
  REQUIRE(submitted.ok());
  REQUIRE(submitted->scenarios_size() == 2);
  CHECK(submitted->scenarios(0).scenario_id() == "00-gpu-c2");
  CHECK(fleet.dispatcher.RunRound().assigned == 1);
  CHECK(fleet.channel_a.Assignments().empty());
  CHECK(fleet.channel_c.Assignments().size() == 1);

  // Labels no connected agent has: the scenarios wait, saying so.
  (*request.mutable_spec()->mutable_placement()->mutable_agent_labels())["gpu"] = "mi300x";
  const std::string waiting = fleet.jobs.Submit(request)->job_id();
  fleet.dispatcher.RunRound();
  CHECK(fleet.jobs.table().Find(waiting)->scenarios[0].reason ==
        "waiting: no connected agent has the labels gpu=mi300x");
}

}  // namespace
}  // namespace kvbench::controller
