// Scenarios that cannot start: each fails with a message naming the cause, and leaves no process.

#include <catch2/catch.hpp>

#include "tests/component/agent/scenario/scenario_harness.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_sleeper.h"

namespace kvbench::testing {
namespace {

using agent::ScenarioDriver;

// The shipped profiles with `name` replaced by a shell command that ignores the rendered flags.
std::vector<v1::Profile> ProfilesWith(const std::string& name, const std::string& shell,
                                      double ready_timeout_s) {
  std::vector<v1::Profile> profiles;
  absl::StatusOr<agent::tiers::ProfileSet> shipped =
      agent::tiers::ProfileSet::LoadDir(KV_PROFILES_DIR);
  REQUIRE(shipped.ok());
  for (const std::string& each : shipped->names()) {
    v1::Profile profile = **shipped->Find(each);
    if (each == name) {
      profile.clear_command();
      for (const char* word : {"sh", "-c"}) profile.add_command(word);
      profile.add_command(shell);
      profile.add_command("--");
      profile.clear_extra_args();
      profile.set_ready_timeout_s(ready_timeout_s);
    }
    profiles.push_back(profile);
  }
  return profiles;
}

absl::Status RunScenario(ScenarioHarness& harness, const v1::JobSpec& job, v1::Tier tier) {
  v1::Scenario scenario = ScenarioHarness::MakeScenario(tier, 2, 2);
  ScenarioDriver executor(harness.Environment(scenario), job, scenario, harness.Sink());
  return executor.Run().status();
}

TEST_CASE("A cache server that never gets healthy fails the scenario, naming it", "[Scenario]") {
  ScenarioHarness harness(ProfilesWith("sim-lmcache", "exec sleep 300.25", 1.0));
  absl::Status status = RunScenario(harness, ScenarioHarness::SimJob(1, 0.01), v1::CPU_RAM);
  CHECK(status.code() == absl::StatusCode::kDeadlineExceeded);
  CHECK_THAT(std::string(status.message()), Catch::Contains("cache-server"));
  CHECK(ScenarioHarness::ProcessesMatching("sleep 300.25").empty());
  CHECK(ScenarioHarness::LiveChildren().empty());
  // The failure was reported as an event with its reason.
  const std::vector<v1::Event> events = harness.events();
  REQUIRE_FALSE(events.empty());
  CHECK(events.back().state_change().state() == v1::SCENARIO_STATE_FAILED);
  CHECK_THAT(events.back().state_change().reason(), Catch::Contains("cache-server"));
}

TEST_CASE("A long start-up sends its phase again every 30 s of it: the controller sees it alive",
          "[Scenario]") {
  // A cache server still loading after 100 s (of a fake clock that only the waits move): the
  // controller's event_silence_timeout_s must not take that for an agent gone silent.
  // Its `--help` (the agent's probe of the flags it knows) answers at once.
  ScenarioHarness harness(
      ProfilesWith("sim-lmcache", "[ \"$1\" = --help ] && exit 0; exec sleep 300.75", 100.0));
  v1::Scenario scenario = ScenarioHarness::MakeScenario(v1::CPU_RAM, 2, 2);
  FakeClock clock;
  FakeSleeper sleeper(&clock);
  // Each 50 ms probe period counts a second: 100 probes, not 2,000.
  sleeper.set_on_sleep([&clock](absl::Duration) { clock.AdvanceTime(absl::Milliseconds(950)); });
  agent::ScenarioEnvironment environment = harness.Environment(scenario);
  environment.clock = &clock;
  environment.sleeper = &sleeper;
  ScenarioDriver driver(environment, ScenarioHarness::SimJob(1, 0.01), scenario, harness.Sink());
  CHECK(driver.Run().status().code() == absl::StatusCode::kDeadlineExceeded);
  std::vector<double> starting;  // elapsed_s of each progress event in that phase
  for (const v1::Event& event : harness.events()) {
    if (event.has_progress() &&
        event.progress().phase() == v1::SCENARIO_PHASE_STARTING_CACHE_SERVER) {
      starting.push_back(event.progress().elapsed_s());
    }
  }
  // The phase's own event, then one at each 30 s without another: 4 in 100 s.
  REQUIRE(starting.size() == 4);
  for (size_t i = 1; i < starting.size(); ++i) {
    CHECK(starting[i] - starting[i - 1] >= 30.0);
    CHECK(starting[i] - starting[i - 1] < 31.1);
  }
  CHECK(ScenarioHarness::ProcessesMatching("sleep 300.75").empty());
}

TEST_CASE("A replica that exits at start fails the scenario with its exit and log", "[Scenario]") {
  ScenarioHarness harness(
      ProfilesWith("sim-vllm", "echo replica-boom >&2; exec sleep 300.5 & exit 3", 30.0));
  absl::Status status = RunScenario(harness, ScenarioHarness::SimJob(1, 0.01), v1::GPU);
  CHECK(status.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(status.message()), Catch::Contains("replica-0") &&
                                                Catch::Contains("exited with code 3") &&
                                                Catch::Contains("replica-boom"));
  // Its background child was in its process group: gone with it.
  CHECK(ScenarioHarness::ProcessesMatching("sleep 300.5").empty());
  CHECK(ScenarioHarness::LiveChildren().empty());
}

TEST_CASE("Two replicas without caddy installed: refused before anything starts", "[Scenario]") {
  ScenarioHarness harness(std::nullopt, /*search_path=*/"/nonexistent");
  absl::Status status = RunScenario(harness, ScenarioHarness::SimJob(2, 0.01), v1::GPU);
  CHECK(status.code() == absl::StatusCode::kNotFound);
  CHECK_THAT(std::string(status.message()), Catch::Contains("caddy"));
  CHECK(ScenarioHarness::LiveChildren().empty());
}

}  // namespace
}  // namespace kvbench::testing
