// The one composition of the agent's seams (agent/scenario_environment_factory.h): what every
// place that runs a scenario (kv-agent, kvctl run, these tests) gets unless it says otherwise.

#include <catch2/catch.hpp>

#include "agent/scenario_environment_factory.h"
#include "tests/component/agent/scenario/scenario_harness.h"

namespace kvbench::testing {
namespace {

TEST_CASE("scenarios get the agent's documented stop grace and every seam", "[environment]") {
  ScenarioHarness harness;
  const v1::Scenario scenario = ScenarioHarness::MakeScenario(v1::GPU, 2, 2);
  const agent::ScenarioEnvironment env = harness.Environment(scenario);
  // README "kv-agent": child_stop_grace_s (30), kvctl run's as the agent's.
  CHECK(env.stop_grace == absl::Seconds(30));
  CHECK(env.launcher != nullptr);
  CHECK(env.http != nullptr);
  CHECK(env.clock != nullptr);
  CHECK(env.ports != nullptr);
  CHECK(env.profiles != nullptr);
  CHECK(env.programs != nullptr);
  CHECK(env.datasets != nullptr);
  CHECK(env.dataset_provisioner != nullptr);  // off without a cache dir, as on the agent
  CHECK(env.scenario_dir == harness.ScenarioDir(scenario));
  CHECK(env.run_dir == harness.run_dir());
}

}  // namespace
}  // namespace kvbench::testing
