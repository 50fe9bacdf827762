// `kvctl run`'s embedded controller and agent (controller/kvctl/embedded_controller.h): the real
// JobManager over the run's job store and the agent's real ControllerLink over the in-process
// bridge, with FakeScenarioRunner ending each scenario as the job-outcome table says
// (tests/unit/controller/core/job_outcome_table.h, the table the controller's own test runs). The
// job's states, error and kvctl run's exit must be the controller's, the store must be
// <out>/<job>/job.db, a real SIGHUP (a closed terminal) must cancel the job, and a scenario the
// machine cannot run must fail in its turn with the scheduler's reason.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "agent/link/event_spool.h"
#include "controller/kvctl/embedded_controller.h"
#include "controller/kvctl/job_folder_store.h"
#include "controller/kvctl/local_job_record.h"
#include "controller/scheduler/scheduler.h"
#include "tests/fakes/fake_scenario_runner.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"
#include "tests/unit/controller/core/job_outcome_table.h"

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

// The capabilities of a machine that runs SIM engines and, with `cache_server`, offload tiers.
v1::AgentCapabilities SimMachine(bool cache_server) {
  v1::AgentCapabilities machine;
  machine.set_agent_id("local");
  machine.add_profiles(controller::kSimVllmProfile);
  if (cache_server) machine.add_profiles(controller::kSimLmcacheProfile);
  return machine;
}

struct LocalRun {
  v1::Job job;
  std::string store_path;
  std::vector<v1::Event> events;  // as Follow handed them over
};

// kvctl run's composition with a FakeScenarioRunner that ends the scenarios as `row` says; at the
// first cancelled one (running) the terminal closes: SIGHUP, a real signal to this process.
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
  (*embedded)->Attach(SimMachine(/*cache_server=*/false), spool->get(), &runner);

  std::atomic<bool> driven{true};
  std::mutex events_mu;
  // The user presses the key once the terminal shows the scenario running.
  auto shown_running = [&](const std::string& id) {
    std::lock_guard<std::mutex> lock(events_mu);
    return std::any_of(run.events.begin(), run.events.end(), [&](const v1::Event& event) {
      return event.scenario_id() == id && event.has_state_change() &&
             event.state_change().state() == v1::SCENARIO_STATE_RUNNING;
    });
  };
  std::thread driver([&] {
    for (size_t i = 0; i < row.states.size(); ++i) {
      const std::string id = scenarios[i].scenario_id();
      if (!WaitFor([&] { return runner.running_scenario_id() == id; })) {
        driven = false;
        (*embedded)->Interrupt("stuck");  // ends Follow; the assertions below name what went wrong
        return;
      }
      if (row.states[i] == kCancelled) {
        driven = WaitFor([&] { return shown_running(id); });
        ::kill(::getpid(), SIGHUP);
        return;
      }
      runner.set_fail_with(row.states[i] == kFailed ? kFailure : "");
      runner.Complete();
    }
  });
  absl::StatusOr<v1::Job> job =
      (*embedded)->Follow(submitted->job_id(), [&](const v1::Event& event) {
        std::lock_guard<std::mutex> lock(events_mu);
        run.events.push_back(event);
      });
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
      if (row.states[i] == kCancelled) {
        CHECK_THAT(job.scenarios(i).error(), Catch::Contains("interrupted (SIGHUP)"));
      }
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

TEST_CASE("kvctl run fails a scenario its machine cannot run with the scheduler's reason",
          "[kvctl_run]") {
  TempDir out;
  kvctl::JobFolderStore store(out.path());
  RealClock clock;
  absl::StatusOr<std::unique_ptr<kvctl::EmbeddedController>> embedded =
      kvctl::EmbeddedController::Start(&store, &clock);
  REQUIRE(embedded.ok());
  v1::JobSpec spec = SimSpec();
  spec.add_tiers(v1::CPU_RAM);  // GPU and CPU_RAM at 1, 2 and 3 users
  absl::StatusOr<v1::SubmitJobResponse> submitted = (*embedded)->Submit(spec);
  REQUIRE(submitted.ok());
  FakeScenarioRunner runner;  // completes what it is given
  absl::StatusOr<std::unique_ptr<agent::EventSpool>> spool =
      agent::EventSpool::Open(out.path() + "/spool");
  REQUIRE(spool.ok());
  // No cache server's profile here: CPU_RAM cannot run, and no other agent will come.
  (*embedded)->Attach(SimMachine(/*cache_server=*/false), spool->get(), &runner);
  absl::StatusOr<v1::Job> job = (*embedded)->Follow(submitted->job_id(), nullptr);
  runner.Shutdown();
  (*embedded)->Stop();
  REQUIRE(job.ok());

  CHECK(job->state() == v1::JOB_STATE_FAILED);
  CHECK_THAT(job->error(), Catch::Contains("needs profile sim-lmcache"));
  REQUIRE(job->scenarios_size() == 6);
  for (const v1::ScenarioStatus& scenario : job->scenarios()) {
    INFO(scenario.scenario().scenario_id() << ": " << scenario.error());
    if (scenario.scenario().tier() == v1::GPU) {
      CHECK(scenario.state() == v1::SCENARIO_STATE_SUCCEEDED);
    } else {
      CHECK(scenario.state() == v1::SCENARIO_STATE_FAILED);
      CHECK(scenario.attempt() == 0);  // never given to the agent
      CHECK_THAT(scenario.error(), Catch::StartsWith("no agent can run it: ") &&
                                       Catch::Contains("needs profile sim-lmcache"));
    }
  }
  // The agent ran the GPU scenarios only.
  const std::vector<v1::Assignment> given = runner.assignments();
  CHECK(given.size() == 3);
  for (const v1::Assignment& assignment : given) CHECK(assignment.scenario().tier() == v1::GPU);
}

}  // namespace
}  // namespace kvbench::testing
