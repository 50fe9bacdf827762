// A scheduling round over a table holding 10,000 finished jobs looks only at the pending
// scenarios (the JobTable's index), places them by the scheduler and records the assignment. A
// scenario no agent can run waits with the reason, or in a closed fleet (kvctl run) fails with it.

#include "controller/core/scenario_dispatcher.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "controller/core/agent_registry.h"
#include "controller/core/job_state_machine.h"
#include "controller/store/sql_store.h"
#include "tests/fakes/fake_clock.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/controller/core/fake_agent_channel.h"
#include "tests/unit/controller/core/job_manager_harness.h"

namespace kvbench::controller {
namespace {

using testing::FakeAgentChannel;

constexpr int kFinishedJobs = 10000;

// A job that ended long ago, in memory only (as a controller recovers it from a large store).
JobRecord FinishedJob(int index) {
  JobRecord job;
  job.job_id = "old-" + std::to_string(index);
  job.state = v1::JOB_STATE_SUCCEEDED;
  ScenarioRecord& scenario = job.scenarios.emplace_back();
  scenario.scenario.set_job_id(job.job_id);
  scenario.scenario.set_scenario_id("s0");
  scenario.state = v1::SCENARIO_STATE_SUCCEEDED;
  scenario.agent_id = "a";
  scenario.attempt = 1;
  return job;
}

struct Fixture {
  explicit Fixture(bool fail_unplaceable = false) : dispatcher(&jobs, &agents, fail_unplaceable) {
    for (int i = 0; i < kFinishedJobs; ++i) jobs.table().Add(FinishedJob(i));
    agents.Attach(&channel, Registration("a", false).capabilities(), absl::ZeroDuration(),
                  clock.Now());
  }

  kvbench::testing::TempDir dir;
  std::unique_ptr<SqlStore> store = *SqlStore::OpenSqlite(dir.path() + "/controller.db");
  kvbench::testing::FakeClock clock;
  int notified = 0;
  JobStateMachine jobs{
      store.get(), &clock, /*max_scenario_attempts=*/2, /*only_job_id=*/"",
      JobStateHooks{[this](const std::string&) { ++notified; }, [] {},
                    [](const std::string&, const std::string&) {},
                    [](const std::string&, const v1::ScenarioAttempt&, const std::string&) {},
                    [] { return std::vector<v1::AgentCapabilities>(); }}};
  AgentRegistry agents;
  FakeAgentChannel channel;
  ScenarioDispatcher dispatcher;
};

TEST_CASE("a round visits only the pending scenarios, not the finished jobs",
          "[scenario_dispatcher]") {
  Fixture f;
  v1::SubmitJobRequest request;
  *request.mutable_spec() = SimSpec({v1::GPU}, {2, 4});
  const std::string job_id = f.jobs.Submit(request)->job_id();

  ScenarioDispatcher::Round round = f.dispatcher.RunRound();
  CHECK(round.scenarios_visited == 2);
  CHECK(round.assigned == 1);  // one scenario per agent
  REQUIRE(f.channel.Assignments().size() == 1);
  CHECK(f.channel.Assignments()[0].scenario().job_id() == job_id);
  CHECK(f.channel.Assignments()[0].attempt() == 1);
  CHECK(f.agents.Find("a")->running_job_id == job_id);
  CHECK(f.jobs.table().Find(job_id)->state == v1::JOB_STATE_RUNNING);
  CHECK(f.jobs.table().ActiveOn("a").size() == 1);

  // The agent is busy: the next round sees the one scenario still pending and places nothing.
  round = f.dispatcher.RunRound();
  CHECK(round.scenarios_visited == 1);
  CHECK(round.assigned == 0);
  CHECK(f.channel.Assignments().size() == 1);
}

TEST_CASE("a round with nothing pending visits nothing", "[scenario_dispatcher]") {
  Fixture f;
  const ScenarioDispatcher::Round round = f.dispatcher.RunRound();
  CHECK(round.scenarios_visited == 0);
  CHECK(round.assigned == 0);
  CHECK(f.channel.sent.empty());
}

// Agent "a" has no NVMe cache path: the NVME scenario fits no connected agent.
TEST_CASE("an unplaceable scenario waits with the reason while agents may join",
          "[scenario_dispatcher]") {
  Fixture f;
  v1::SubmitJobRequest request;
  *request.mutable_spec() = SimSpec({v1::NVME}, {2});
  const std::string job_id = f.jobs.Submit(request)->job_id();
  f.dispatcher.RunRound();
  const ScenarioRecord& scenario = f.jobs.table().Find(job_id)->scenarios[0];
  CHECK(scenario.state == v1::SCENARIO_STATE_PENDING);
  CHECK(scenario.reason ==
        "waiting: needs an NVMe cache path (tier NVME); no connected agent has one");
  CHECK(f.channel.Assignments().empty());
  CHECK(f.jobs.table().Find(job_id)->state == v1::JOB_STATE_QUEUED);
}

// kvctl run's rule: the scenarios go in order on the one agent, and one it cannot run fails when
// its turn comes (not before: a run cancelled before then leaves it CANCELLED, never started).
TEST_CASE("in a closed fleet an unplaceable scenario fails with the reason when its turn comes",
          "[scenario_dispatcher]") {
  Fixture f(/*fail_unplaceable=*/true);
  v1::SubmitJobRequest request;
  *request.mutable_spec() = SimSpec({v1::GPU, v1::NVME}, {2, 4});  // gpu-c2 nvme-c2 gpu-c4 nvme-c4
  const std::string job_id = f.jobs.Submit(request)->job_id();
  const JobRecord& job = *f.jobs.table().Find(job_id);
  REQUIRE(job.scenarios.size() == 4);
  const std::string kWhy = "needs an NVMe cache path (tier NVME); no connected agent has one";
  auto finish_running = [&](int index, int64_t seq) {
    const v1::Assignment assignment = f.channel.Assignments().back();
    REQUIRE(assignment.scenario().scenario_id() == job.scenarios[index].scenario.scenario_id());
    f.jobs.ApplyAgentEvent(StateEvent("a", assignment, seq, v1::SCENARIO_STATE_SUCCEEDED));
    f.agents.Find("a")->running_job_id.clear();
    f.agents.Find("a")->running_scenario_id.clear();
  };

  // Round 1: gpu-c2 goes to "a"; nvme-c2 comes after it and waits.
  CHECK(f.dispatcher.RunRound().assigned == 1);
  CHECK(job.scenarios[0].state == v1::SCENARIO_STATE_ASSIGNED);
  CHECK(job.scenarios[1].state == v1::SCENARIO_STATE_PENDING);
  CHECK(job.scenarios[1].reason == "waiting: " + kWhy);

  // gpu-c2 done: nvme-c2's turn comes before gpu-c4 is placed, so it fails; nvme-c4 waits.
  finish_running(0, 1);
  CHECK(f.dispatcher.RunRound().assigned == 1);
  CHECK(job.scenarios[1].state == v1::SCENARIO_STATE_FAILED);
  CHECK(job.scenarios[1].attempt == 0);  // never given to an agent
  CHECK(job.scenarios[1].reason == "no agent can run it: " + kWhy);
  CHECK(job.scenarios[2].state == v1::SCENARIO_STATE_ASSIGNED);
  CHECK(job.scenarios[3].state == v1::SCENARIO_STATE_PENDING);

  // gpu-c4 done: nothing left to place and nothing running, so nvme-c4 fails and the job ends.
  finish_running(2, 2);
  CHECK(f.dispatcher.RunRound().assigned == 0);
  CHECK(job.scenarios[3].state == v1::SCENARIO_STATE_FAILED);
  CHECK(f.jobs.table().pending().empty());
  CHECK(job.state == v1::JOB_STATE_FAILED);
  // Stored as well: a controller restarted from the file sees the same.
  absl::StatusOr<JobRecord> stored = f.store->Jobs().GetJob(job_id);
  REQUIRE(stored.ok());
  REQUIRE(stored->scenarios.size() == 4);
  CHECK(stored->scenarios[1].state == v1::SCENARIO_STATE_FAILED);
  CHECK(stored->scenarios[1].reason == job.scenarios[1].reason);
}

}  // namespace
}  // namespace kvbench::controller
