#pragma once

// JobManager on a stepped loop and a fake clock, with a real SQLite store in a temp dir, and the
// messages agents send it: shared by the JobManager tests and the job-outcome table.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "controller/core/job_manager.h"
#include "controller/store/sql_store.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_executor.h"
#include "tests/support/sim_job_spec.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/controller/core/fake_agent_channel.h"

namespace kvbench::controller {

using testing::FakeAgentChannel;

inline v1::JobSpec SimSpec(std::vector<v1::Tier> tiers, std::vector<int> concurrency) {
  return testing::SimJobSpec("sweep", tiers, concurrency);
}

inline v1::Register Registration(const std::string& agent_id, bool nvme) {
  v1::Register message;
  v1::AgentCapabilities* capabilities = message.mutable_capabilities();
  capabilities->set_agent_id(agent_id);
  capabilities->add_profiles("sim-vllm");
  capabilities->add_profiles("sim-lmcache");
  capabilities->set_cpu_memory_bytes(64LL << 30);
  if (nvme) {
    capabilities->set_nvme_cache_path("/nvme/kv");
    capabilities->set_nvme_free_bytes(1LL << 40);
  }
  return message;
}

inline v1::Event StateEvent(const std::string& agent, const v1::Assignment& assignment, int64_t seq,
                            v1::ScenarioState state) {
  v1::Event event;
  event.set_seq(seq);
  event.set_agent_id(agent);
  event.set_job_id(assignment.scenario().job_id());
  event.set_scenario_id(assignment.scenario().scenario_id());
  event.set_attempt(assignment.attempt());
  event.mutable_state_change()->set_state(state);
  return event;
}

// What a Register lists for an attempt the agent still runs.
inline v1::ScenarioAttempt Holding(const v1::Assignment& assignment) {
  v1::ScenarioAttempt attempt;
  attempt.set_job_id(assignment.scenario().job_id());
  attempt.set_scenario_id(assignment.scenario().scenario_id());
  attempt.set_attempt(assignment.attempt());
  return attempt;
}

inline v1::Event ResultEvent(const std::string& agent, const v1::Assignment& assignment,
                             int64_t seq) {
  v1::Event event = StateEvent(agent, assignment, seq, v1::SCENARIO_STATE_UNSPECIFIED);
  event.mutable_result()->mutable_sessions()->set_achieved(assignment.scenario().concurrency());
  return event;
}

struct JobManagerHarness {
  JobManagerHarness() { Open(); }

  void Open() {
    store = *SqlStore::OpenSqlite(dir.path() + "/controller.db");
    JobManagerOptions options;
    options.heartbeat_interval = absl::Seconds(1);
    options.heartbeat_timeout = absl::Seconds(3);
    options.max_scenario_attempts = 2;
    absl::StatusOr<std::unique_ptr<JobManager>> created =
        JobManager::Create(store.get(), &clock, &loop, options);
    INFO(created.status().ToString());
    REQUIRE(created.ok());
    manager = *std::move(created);
    loop.RunUntilIdle();
  }
  void Restart() {
    manager.reset();
    store.reset();
    Open();
  }

  std::string Submit(const v1::JobSpec& spec) {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = spec;
    absl::StatusOr<v1::SubmitJobResponse> response = manager->SubmitJob(request);
    INFO(response.status().ToString());
    REQUIRE(response.ok());
    loop.RunUntilIdle();
    return response->job_id();
  }
  void Register(FakeAgentChannel* channel, const v1::Register& message) {
    v1::AgentMessage wrapped;
    *wrapped.mutable_register_() = message;
    REQUIRE(manager->OnAgentMessage(channel, wrapped).ok());
    loop.RunUntilIdle();
  }
  void Heartbeat(FakeAgentChannel* channel, const v1::Heartbeat& message) {
    v1::AgentMessage wrapped;
    *wrapped.mutable_heartbeat() = message;
    REQUIRE(manager->OnAgentMessage(channel, wrapped).ok());
  }
  void Send(FakeAgentChannel* channel, const v1::Event& event) {
    v1::AgentMessage wrapped;
    *wrapped.mutable_event() = event;
    REQUIRE(manager->OnAgentMessage(channel, wrapped).ok());
    loop.RunUntilIdle();
  }
  // RUNNING, a result, SUCCEEDED, with seqs from `seq`.
  int64_t Complete(FakeAgentChannel* channel, const std::string& agent,
                   const v1::Assignment& assignment, int64_t seq) {
    Send(channel, StateEvent(agent, assignment, seq++, v1::SCENARIO_STATE_RUNNING));
    Send(channel, ResultEvent(agent, assignment, seq++));
    Send(channel, StateEvent(agent, assignment, seq++, v1::SCENARIO_STATE_SUCCEEDED));
    return seq;
  }
  v1::Job Job(const std::string& id) { return *manager->GetJob(id); }

  kvbench::testing::TempDir dir;
  kvbench::testing::FakeClock clock;
  kvbench::testing::FakeExecutor loop{&clock};
  std::unique_ptr<SqlStore> store;
  std::unique_ptr<JobManager> manager;
};

}  // namespace kvbench::controller
