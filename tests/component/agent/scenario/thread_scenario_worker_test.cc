// The real ScenarioWorker on a scenario that cannot start (its programs are not built next to the
// test, or else its dataset lies outside the agent's roots): its events, its directories, and that
// it is idle again for the next assignment.
#include "agent/scenario/thread_scenario_worker.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <mutex>

#include "agent/agent_environment.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

class RecordedEvents {
 public:
  void Add(v1::Event event) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(event));
  }
  std::vector<v1::Event> Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<v1::Event> events_;
};

v1::Assignment AssignmentWithForeignDataset(const std::string& scenario_id) {
  v1::Assignment assignment;
  v1::Scenario* scenario = assignment.mutable_scenario();
  scenario->set_scenario_id(scenario_id);
  scenario->set_job_id("job-9");
  scenario->set_tier(v1::GPU);
  scenario->set_concurrency(2);
  v1::JobSpec* spec = assignment.mutable_spec();
  spec->set_model("sim-model");
  spec->set_engine(v1::SIM);
  spec->set_build(v1::NVIDIA);
  spec->add_tiers(v1::GPU);
  spec->add_concurrency(2);
  spec->set_num_rounds(5);
  spec->mutable_dataset()->set_code("sharegpt");
  // A path outside the agent's dataset roots: an agent never reads it.
  spec->mutable_dataset()->set_path("/etc/passwd");
  return assignment;
}

TEST_CASE("ThreadScenarioWorker reports a scenario that cannot start and is idle after it",
          "[link]") {
  TempDir dir;
  RealClock clock;
  RealSleeper sleeper;
  v1::AgentConfig config;
  config.set_work_dir(dir.File("work"));
  config.set_dataset_cache_dir(dir.File("datasets"));
  config.set_child_stop_grace_s(1);
  const agent::WorkDirLayout layout = agent::WorkDirLayout::ForWorkDir(config.work_dir());
  REQUIRE(layout.EnsureCreated().ok());
  absl::StatusOr<agent::tiers::ProfileSet> profiles =
      agent::tiers::ProfileSet::LoadDir(KV_PROFILES_DIR);
  REQUIRE(profiles.ok());
  agent::AgentSeams seams;
  seams.clock = &clock;
  seams.sleeper = &sleeper;
  auto runner = agent::ThreadScenarioWorker::Create(
      agent::AgentEnvironmentOptions(config, layout, *profiles, seams), layout);
  REQUIRE(runner.ok());

  for (const std::string scenario_id : {"00-gpu-c2", "01-gpu-c2"}) {
    RecordedEvents events;
    REQUIRE((*runner)
                ->Start(AssignmentWithForeignDataset(scenario_id),
                        [&](v1::Event event) { events.Add(std::move(event)); })
                .ok());
    REQUIRE(WaitFor([&] {
      auto got = events.Get();
      return !got.empty() && agent::IsTerminalEvent(got.back());
    }));
    CHECK((*runner)->running_scenario_id().empty());
    const std::vector<v1::Event> got = events.Get();
    CHECK(got.front().state_change().state() == v1::SCENARIO_STATE_RUNNING);
    CHECK(got.back().state_change().state() == v1::SCENARIO_STATE_FAILED);
    CHECK_FALSE(got.back().state_change().reason().empty());
    for (const v1::Event& event : got) {
      CHECK(event.job_id() == "job-9");
      CHECK(event.scenario_id() == scenario_id);
      CHECK(event.seq() == 0);  // numbering is the link's
    }
    CHECK(std::filesystem::is_directory(layout.ScenarioLogDir("job-9", scenario_id)));
  }
  v1::ScenarioAttempt not_running;
  not_running.set_job_id("job-9");
  not_running.set_scenario_id("not-running");
  not_running.set_attempt(1);
  (*runner)->Cancel(not_running);  // a no-op
  (*runner)->Shutdown();
  CHECK_FALSE((*runner)->Start(AssignmentWithForeignDataset("02-gpu-c2"), [](v1::Event) {}).ok());
}

}  // namespace
}  // namespace kvbench::testing
