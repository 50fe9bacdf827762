// One controller and several agents in one process over loopback: placement by capability, a
// stream cut mid-scenario (events replayed, none lost or doubled), an agent killed for good (its
// scenario requeued on another), and a controller restarted from its SQLite file.

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "tests/cluster/cluster_harness.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

// Every stored event of the job, read through WatchJob from the start (the stream ends when the
// job has ended).
std::vector<v1::WatchJobResponse> WatchAll(ClusterHarness& cluster, const std::string& job_id) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  v1::WatchJobRequest request;
  request.set_job_id(job_id);
  auto reader = cluster.client().WatchJob(&context, request);
  std::vector<v1::WatchJobResponse> events;
  v1::WatchJobResponse response;
  while (reader->Read(&response)) events.push_back(response);
  grpc::Status status = reader->Finish();
  INFO(status.error_message());
  CHECK(status.ok());
  return events;
}

const v1::ScenarioStatus& ScenarioOfTier(const v1::Job& job, v1::Tier tier) {
  for (const v1::ScenarioStatus& scenario : job.scenarios()) {
    if (scenario.scenario().tier() == tier) return scenario;
  }
  FAIL("no scenario of tier " << v1::Tier_Name(tier));
  return job.scenarios(0);
}

TEST_CASE("a sweep is spread over the agents by capability", "[cluster]") {
  ClusterHarness cluster;
  cluster.AddAgent("agent-a", /*nvme=*/false);
  cluster.AddAgent("agent-b", /*nvme=*/true);
  cluster.AddAgent("agent-c", /*nvme=*/false);
  for (const char* id : {"agent-a", "agent-b", "agent-c"}) {
    cluster.agent(id).runner->set_duration(absl::Milliseconds(300));
  }
  const std::string job_id =
      cluster.Submit(SimJob("spread", {v1::GPU, v1::CPU_RAM, v1::NVME}, {2}));
  v1::Job job = cluster.WaitForJob(job_id, v1::JOB_STATE_SUCCEEDED);
  REQUIRE(job.state() == v1::JOB_STATE_SUCCEEDED);
  // Only agent-b has an NVMe cache dir; the three ran side by side, one scenario each.
  CHECK(ScenarioOfTier(job, v1::NVME).agent_id() == "agent-b");
  std::set<std::string> used;
  for (const v1::ScenarioStatus& scenario : job.scenarios()) {
    CHECK(scenario.state() == v1::SCENARIO_STATE_SUCCEEDED);
    CHECK(scenario.attempt() == 1);
    CHECK(scenario.result().sessions().achieved() == 2);
    used.insert(scenario.agent_id());
  }
  CHECK(used.size() == 3);
  for (const char* id : {"agent-a", "agent-b", "agent-c"}) {
    CHECK(cluster.agent(id).runner->assignments().size() == 1);
  }
}

TEST_CASE("a stream cut mid-scenario loses and doubles no event", "[cluster]") {
  ClusterHarness cluster;
  ClusterHarness::Agent& agent = cluster.AddAgent("agent-a", false);
  agent.runner->Hold();
  const std::string job_id = cluster.Submit(SimJob("cut", {v1::CPU_RAM}, {4}));
  REQUIRE(WaitFor(
      [&] { return cluster.GetJob(job_id).scenarios(0).state() == v1::SCENARIO_STATE_RUNNING; }));
  const int connects = agent.link->connects();
  agent.proxy->CutAll();
  agent.proxy->SetRefusing(true);
  REQUIRE(WaitFor([&] { return !agent.link->connected(); }));
  // The scenario ends while the agent cannot reach the controller: its events wait in the spool.
  agent.runner->Release();
  REQUIRE(WaitFor([&] { return agent.runner->running_scenario_id().empty(); }));
  CHECK(cluster.GetJob(job_id).state() == v1::JOB_STATE_RUNNING);
  agent.proxy->SetRefusing(false);
  REQUIRE(WaitFor([&] { return agent.link->connects() > connects; }));

  v1::Job job = cluster.WaitForJob(job_id, v1::JOB_STATE_SUCCEEDED);
  REQUIRE(job.state() == v1::JOB_STATE_SUCCEEDED);
  CHECK(job.scenarios(0).attempt() == 1);  // kept, not requeued
  CHECK(job.scenarios(0).result().sessions().achieved() == 4);
  // The agent's events, in the controller's log: every seq once, none missing.
  std::vector<int64_t> seqs;
  for (const v1::WatchJobResponse& response : WatchAll(cluster, job_id)) {
    if (response.event().agent_id() == "agent-a") seqs.push_back(response.event().seq());
  }
  REQUIRE(seqs.size() >= 3);
  for (size_t i = 1; i < seqs.size(); ++i) CHECK(seqs[i] == seqs[i - 1] + 1);
  REQUIRE(WaitFor([&] { return agent.spool->Unacknowledged().empty(); }));
}

TEST_CASE("an agent killed for good has its scenario requeued on another", "[cluster]") {
  ClusterHarness cluster(/*heartbeat_timeout=*/absl::Seconds(1.5));
  ClusterHarness::Agent& doomed = cluster.AddAgent("agent-a", false);
  doomed.runner->Hold();
  const std::string job_id = cluster.Submit(SimJob("requeue", {v1::GPU}, {2}));
  REQUIRE(WaitFor(
      [&] { return cluster.GetJob(job_id).scenarios(0).state() == v1::SCENARIO_STATE_RUNNING; }));
  ClusterHarness::Agent& survivor = cluster.AddAgent("agent-b", false);
  survivor.runner->set_duration(absl::Milliseconds(100));
  CHECK(survivor.runner->assignments().empty());  // it is agent-a's for now
  cluster.KillAgent("agent-a");

  v1::Job job = cluster.WaitForJob(job_id, v1::JOB_STATE_SUCCEEDED);
  REQUIRE(job.state() == v1::JOB_STATE_SUCCEEDED);
  CHECK(job.scenarios(0).agent_id() == "agent-b");
  CHECK(job.scenarios(0).attempt() == 2);
  bool lost_reported = false;
  for (const v1::WatchJobResponse& response : WatchAll(cluster, job_id)) {
    lost_reported |= response.event().state_change().state() == v1::SCENARIO_STATE_LOST;
  }
  CHECK(lost_reported);
}

TEST_CASE("a controller restarted from its SQLite file keeps every job and result", "[cluster]") {
  ClusterHarness cluster;
  ClusterHarness::Agent& agent = cluster.AddAgent("agent-a", true);
  agent.runner->set_duration(absl::Milliseconds(50));
  const std::string done_id = cluster.Submit(SimJob("before", {v1::GPU, v1::NVME}, {2, 4}));
  v1::Job done = cluster.WaitForJob(done_id, v1::JOB_STATE_SUCCEEDED);
  REQUIRE(done.state() == v1::JOB_STATE_SUCCEEDED);
  // A second job is mid-scenario when the controller goes down.
  agent.runner->Hold();
  const std::string running_id = cluster.Submit(SimJob("during", {v1::CPU_RAM}, {8}));
  REQUIRE(WaitFor([&] {
    return cluster.GetJob(running_id).scenarios(0).state() == v1::SCENARIO_STATE_RUNNING;
  }));

  cluster.StopController();
  agent.runner->Release();  // it finishes while the controller is down
  cluster.StartController();

  v1::Job again = cluster.GetJob(done_id);
  CHECK(again.state() == v1::JOB_STATE_SUCCEEDED);
  REQUIRE(again.scenarios_size() == 4);
  for (int i = 0; i < 4; ++i) {
    CHECK(again.scenarios(i).result().SerializeAsString() ==
          done.scenarios(i).result().SerializeAsString());
  }
  v1::Job finished = cluster.WaitForJob(running_id, v1::JOB_STATE_SUCCEEDED);
  CHECK(finished.state() == v1::JOB_STATE_SUCCEEDED);
  CHECK(finished.scenarios(0).attempt() == 1);
  CHECK(finished.scenarios(0).result().sessions().achieved() == 8);
}

}  // namespace
}  // namespace kvbench::testing
