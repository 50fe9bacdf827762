// `kvctl run`'s embedded controller and agent (controller/kvctl/embedded/embedded_controller.h):
// the real JobManager over the run's job store and the agent's real ControllerLink over the
// in-process bridge, with FakeScenarioWorker ending each scenario as the job-outcome table says
// (tests/unit/controller/core/job_outcome_table.h, the table the controller's own test runs). The
// job's states, error and kvctl run's exit must be the controller's, the store must be
// <out>/<job>/job.db, a real SIGHUP (a closed terminal) must cancel the job, and a scenario the
// machine cannot run must fail in its turn with the scheduler's reason.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "agent/link/controller_link.h"
#include "agent/link/event_spool.h"
#include "controller/core/job_state_machine.h"
#include "controller/kvctl/embedded/embedded_controller.h"
#include "controller/kvctl/local_job_record.h"
#include "controller/placement/placement.h"
#include "controller/store/sql_store.h"
#include "tests/fakes/fake_scenario_worker.h"
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

// kvctl run's controller side as run_command.cc composes it: the job named first, its store at
// <out>/<job>/job.db, the embedded controller started over it, and an agent's ControllerLink
// (over `runner`, offering `machine`) reaching it through the in-process transport.
struct Embedded {
  RealClock clock;
  std::string job_id;
  std::string store_path;
  std::unique_ptr<controller::SqlStore> store;
  std::unique_ptr<kvctl::EmbeddedController> controller;
  std::unique_ptr<agent::EventSpool> spool;
  std::unique_ptr<agent::ControllerLink> link;

  Embedded(const std::string& out_dir, const v1::JobSpec& spec, v1::AgentCapabilities machine,
           agent::ScenarioWorker* runner) {
    job_id = controller::FormatJobId(spec.name(), clock.Now(), 0x1234);
    const std::string job_dir = out_dir + "/" + job_id;
    std::filesystem::create_directories(job_dir);
    store_path = job_dir + "/job.db";
    absl::StatusOr<std::unique_ptr<controller::SqlStore>> opened =
        controller::SqlStore::OpenSqlite(store_path);
    REQUIRE(opened.ok());
    store = *std::move(opened);
    controller = kvctl::EmbeddedController::Create(&clock);
    controller::JobManagerOptions options;
    options.only_job_id = job_id;
    REQUIRE(controller->Start(store.get(), options).ok());
    absl::StatusOr<std::unique_ptr<agent::EventSpool>> spooled =
        agent::EventSpool::Open(out_dir + "/spool");
    REQUIRE(spooled.ok());
    spool = *std::move(spooled);
    agent::ControllerLinkOptions link_options;
    link_options.agent_id = machine.agent_id();
    link_options.controller_address = "in-process";
    link = agent::ControllerLink::CreateWithTransport(link_options, std::move(machine), spool.get(),
                                                      runner, &clock, controller->executor(),
                                                      controller->AgentTransport());
    link->Start();
  }
  // The runner stops first (ControllerLink's rule), then the link and the controller.
  void Stop() {
    link->Stop();
    controller->Stop();
  }
};

// kvctl run's composition with a FakeScenarioWorker that ends the scenarios as `row` says; at the
// first cancelled one (running) the terminal closes: SIGHUP, a real signal to this process.
LocalRun RunLocally(const Row& row, const std::string& out_dir) {
  LocalRun run;
  FakeScenarioWorker runner;
  runner.set_auto_complete(false);
  Embedded embedded(out_dir, SimSpec(), SimMachine(/*cache_server=*/false), &runner);
  absl::StatusOr<v1::SubmitJobResponse> submitted = embedded.controller->Submit(SimSpec());
  REQUIRE(submitted.ok());
  CHECK(submitted->job_id() == embedded.job_id);
  run.store_path = embedded.store_path;
  const std::vector<v1::Scenario> scenarios(submitted->scenarios().begin(),
                                            submitted->scenarios().end());
  REQUIRE(scenarios.size() == row.states.size());

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
        embedded.controller->Interrupt(
            "stuck");  // ends Follow; the assertions below name what went wrong
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
      embedded.controller->Follow(submitted->job_id(), [&](const v1::Event& event) {
        std::lock_guard<std::mutex> lock(events_mu);
        run.events.push_back(event);
      });
  driver.join();
  runner.Shutdown();
  embedded.Stop();
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

// The stream protocol is the JobManager's for every transport: kvctl run's in-process link ends
// a stream whose first message is not Register, and one that registers twice, as the gRPC service
// does (cluster tests hold the gRPC side to the same words).
TEST_CASE("kvctl run's in-process link holds the agent to Register first", "[kvctl_run]") {
  TempDir out;
  RealClock clock;
  absl::StatusOr<std::unique_ptr<controller::SqlStore>> store =
      controller::SqlStore::OpenSqlite(out.path() + "/job.db");
  REQUIRE(store.ok());
  std::unique_ptr<kvctl::EmbeddedController> embedded = kvctl::EmbeddedController::Create(&clock);
  REQUIRE(embedded->Start(store->get()).ok());
  std::unique_ptr<agent::LinkTransport> transport = embedded->AgentTransport();
  // Writes `messages` on a new stream; the status it ends with.
  auto end_of = [&](const std::vector<v1::AgentMessage>& messages) {
    auto ended = std::make_shared<std::promise<absl::Status>>();
    std::future<absl::Status> status = ended->get_future();
    agent::LinkStreamCallbacks callbacks;
    callbacks.on_message = [](v1::ControllerMessage) {};
    callbacks.on_done = [ended](absl::Status done) { ended->set_value(done); };
    std::unique_ptr<agent::LinkStream> stream = transport->Open(std::move(callbacks));
    for (const v1::AgentMessage& message : messages) stream->Write(message);
    REQUIRE(status.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    return status.get();
  };
  v1::AgentMessage heartbeat;
  heartbeat.mutable_heartbeat();
  v1::AgentMessage register_message;
  *register_message.mutable_register_()->mutable_capabilities() = SimMachine(false);

  const absl::Status unregistered = end_of({heartbeat});
  CHECK(unregistered.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(unregistered.message()),
             Catch::Contains("the first message must be Register"));
  const absl::Status twice = end_of({register_message, register_message});
  CHECK(twice.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(twice.message()), Catch::Contains("Register sent twice"));
  embedded->Stop();
}

TEST_CASE("kvctl run fails a scenario its machine cannot run with the scheduler's reason",
          "[kvctl_run]") {
  TempDir out;
  v1::JobSpec spec = SimSpec();
  spec.add_tiers(v1::CPU_RAM);  // GPU and CPU_RAM at 1, 2 and 3 users
  FakeScenarioWorker runner;    // completes what it is given
  // No cache server's profile here: CPU_RAM cannot run, and no other agent will come.
  Embedded embedded(out.path(), spec, SimMachine(/*cache_server=*/false), &runner);
  absl::StatusOr<v1::SubmitJobResponse> submitted = embedded.controller->Submit(spec);
  REQUIRE(submitted.ok());
  absl::StatusOr<v1::Job> job = embedded.controller->Follow(submitted->job_id(), nullptr);
  runner.Shutdown();
  embedded.Stop();
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
