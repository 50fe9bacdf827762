// `kvctl run`'s embedded controller and agent (controller/kvctl/embedded_controller.h): the real
// JobManager over the run's job store and the agent's real ControllerLink over the in-process
// bridge, with FakeScenarioRunner ending each scenario as the job-outcome table says
// (tests/unit/job_manager/job_outcome_table.h, the table the controller's own test runs). The
// job's states, error and kvctl run's exit must be the controller's, and the store must be
// <out>/<job>/job.db.

#include <catch2/catch.hpp>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "agent/link/event_spool.h"
#include "controller/kvctl/embedded_controller.h"
#include "controller/kvctl/job_folder_store.h"
#include "controller/kvctl/local_capabilities.h"
#include "controller/kvctl/local_job_record.h"
#include "controller/scheduler/scheduler.h"
#include "tests/fakes/fake_scenario_runner.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"
#include "tests/unit/job_manager/job_outcome_table.h"

namespace kvbench::testing {
namespace {

v1::JobSpec SimSpec() {
  v1::JobSpec spec;
  spec.set_name("sweep");
  spec.set_model("meta-llama/Llama-3.1-8B-Instruct");
  spec.set_build(v1::NVIDIA);
  spec.set_engine(v1::SIM);
  spec.add_tiers(v1::GPU);
  for (int users : {1, 2, 3}) spec.add_concurrency(users);
  spec.mutable_dataset()->set_code("tau2-bench-v1");
  spec.mutable_dataset()->set_path("tau2_airline_gpt-4.1_results.json");
  spec.set_num_rounds(5);
  spec.set_sessions(16);
  return spec;
}

struct LocalRun {
  v1::Job job;
  std::string store_path;
  std::vector<v1::Event> events;  // as Follow handed them over
};

// kvctl run's composition with a FakeScenarioRunner that ends the scenarios as `row` says; at the
// first cancelled one (running) the user presses Ctrl-C (Follow's cancel flag).
LocalRun RunLocally(const Row& row, const std::string& out_dir) {
  LocalRun run;
  kvctl::JobFolderStore store(out_dir);
  RealClock clock;
  absl::StatusOr<std::unique_ptr<kvctl::EmbeddedController>> embedded =
      kvctl::EmbeddedController::Start(&store, &clock);
  REQUIRE(embedded.ok());
  absl::StatusOr<v1::SubmitJobResponse> submitted = (*embedded)->Submit(SimSpec());
  REQUIRE(submitted.ok());
  run.store_path = store.path();
  const std::vector<v1::Scenario> scenarios(submitted->scenarios().begin(),
                                            submitted->scenarios().end());
  REQUIRE(scenarios.size() == row.states.size());

  FakeScenarioRunner runner;
  runner.set_auto_complete(false);
  absl::StatusOr<std::unique_ptr<agent::EventSpool>> spool =
      agent::EventSpool::Open(out_dir + "/spool");
  REQUIRE(spool.ok());
  v1::AgentCapabilities discovered;  // a machine that offers nothing the scheduler looks at
  discovered.set_agent_id("local");
  (*embedded)->Attach(kvctl::LocalCapabilities(discovered, SimSpec(), scenarios), spool->get(),
                      &runner);

  std::atomic<bool> cancel{false};
  std::atomic<bool> driven{true};
  std::thread driver([&] {
    for (size_t i = 0; i < row.states.size(); ++i) {
      const std::string id = scenarios[i].scenario_id();
      if (!WaitFor([&] { return runner.running_scenario_id() == id; })) {
        driven = false;
        cancel = true;  // ends Follow; the assertions below name what went wrong
        return;
      }
      if (row.states[i] == kCancelled) {
        cancel = true;
        return;
      }
      runner.set_fail_with(row.states[i] == kFailed ? kFailure : "");
      runner.Complete();
    }
  });
  std::mutex events_mu;
  absl::StatusOr<v1::Job> job = (*embedded)->Follow(
      submitted->job_id(),
      [&](const v1::Event& event) {
        std::lock_guard<std::mutex> lock(events_mu);
        run.events.push_back(event);
      },
      &cancel);
  driver.join();
  runner.Shutdown();
  (*embedded)->Stop();
  CHECK(driven);
  REQUIRE(job.ok());
  run.job = *job;
  return run;
}

TEST_CASE("kvctl run ends a job as the controller does, with its store in the run's folder",
          "[kvctl_run]") {
  for (const Row& row : Table()) {
    INFO(row.name);
    TempDir out;
    const LocalRun run = RunLocally(row, out.path());
    const v1::Job& job = run.job;

    // The job's store is the controller's SQLite file, in the job's folder.
    CHECK(run.store_path == out.path() + "/" + job.job_id() + "/job.db");
    CHECK(std::filesystem::is_regular_file(run.store_path));

    // The controller's states (job_outcome_test.cc asserts the same table on the JobManager).
    CHECK(job.state() == row.job_state);
    REQUIRE(job.scenarios_size() == static_cast<int>(row.states.size()));
    for (int i = 0; i < job.scenarios_size(); ++i) {
      INFO(job.scenarios(i).scenario().scenario_id());
      CHECK(job.scenarios(i).state() == row.states[i]);
      if (row.states[i] == kOk) CHECK(job.scenarios(i).has_result());
    }
    if (row.job_state == v1::JOB_STATE_FAILED) {
      CHECK_THAT(job.error(), Catch::StartsWith("scenario ") && Catch::Contains(kFailure));
    } else if (row.job_state == v1::JOB_STATE_CANCELLED) {
      CHECK(!job.error().empty());
    } else {
      CHECK(job.error().empty());
    }
    // Progress saw every scenario's start.
    int running = 0;
    for (const v1::Event& event : run.events) {
      running +=
          event.has_state_change() && event.state_change().state() == v1::SCENARIO_STATE_RUNNING;
    }
    CHECK(running >= 1);
    // kvctl run's exit follows the job: 0, 7 (cancelled) or the failure (5).
    const absl::Status exit = kvctl::RunExitStatus(job);
    CHECK(exit.ok() == (row.job_state == v1::JOB_STATE_SUCCEEDED));
    CHECK(absl::IsCancelled(exit) == (row.job_state == v1::JOB_STATE_CANCELLED));
    CHECK(absl::IsAborted(exit) == (row.job_state == v1::JOB_STATE_FAILED));
  }
}

TEST_CASE("kvctl run's embedded agent is offered every scenario of its job", "[kvctl_run]") {
  v1::JobSpec spec = SimSpec();
  spec.clear_tiers();
  spec.add_tiers(v1::GPU);
  spec.add_tiers(v1::CPU_RAM);
  spec.add_tiers(v1::NVME);
  v1::JobSpec real = spec;
  real.set_engine(v1::VLLM);
  real.set_replicas(2);
  real.set_tensor_parallel_size(2);
  real.set_cpu_pool_gb(64);
  real.set_nvme_pool_gb(512);
  for (const v1::JobSpec& job : {spec, real}) {
    std::vector<v1::Scenario> scenarios;
    for (v1::Tier tier : {v1::GPU, v1::CPU_RAM, v1::NVME}) {
      v1::Scenario& scenario = scenarios.emplace_back();
      scenario.set_tier(tier);
    }
    v1::AgentCapabilities discovered;
    discovered.set_agent_id("local");
    discovered.add_profiles("sim-vllm");
    const v1::AgentCapabilities offered = kvctl::LocalCapabilities(discovered, job, scenarios);
    CHECK(offered.agent_id() == "local");
    for (const v1::Scenario& scenario : scenarios) {
      INFO(v1::Engine_Name(job.engine()) << " " << v1::Tier_Name(scenario.tier()));
      CHECK(controller::UnmetRequirements(controller::RequirementsOf(job, scenario), offered)
                .empty());
    }
  }
}

}  // namespace
}  // namespace kvbench::testing
