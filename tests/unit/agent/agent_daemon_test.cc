#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "agent/agent.h"
#include "tests/fakes/fake_agent_world.h"
#include "tests/support/registry_exposition.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench {
namespace {

using testing::Exposition;

TEST_CASE("The agent lays out its work dir and keeps its gauges on the loop") {
  testing::TempDir dir;
  testing::FakeAgentWorld world;
  v1::AgentConfig config;
  config.set_agent_id("node-1");
  config.set_work_dir(dir.File("work"));
  config.set_profiles_dir(KV_PROFILES_DIR);
  auto agent = agent::Agent::Create(config, world.Seams());
  REQUIRE(agent.ok());
  CHECK((*agent)->profiles().names().size() == 6);
  for (const char* sub : {"scenarios", "run", "spool"}) {
    CHECK(std::filesystem::is_directory(dir.File(std::string("work/") + sub)));
  }
  CHECK((*agent)->layout().ScenarioDir("j1", "00-gpu-c2") ==
        dir.File("work/scenarios/j1/00-gpu-c2"));

  (*agent)->Start();
  world.executor.AdvanceTime(absl::Seconds(12));
  std::string text = Exposition(world.registry);
  INFO(text);
  CHECK(text.find("kvbench_agent_uptime_seconds 10") != std::string::npos);  // last tick at 10 s
  CHECK(text.find("kvbench_build_info{component=\"agent\"") != std::string::npos);
  (*agent)->Shutdown();
  CHECK(world.executor.timer_count() == 0);
  (*agent)->Shutdown();  // idempotent
}

TEST_CASE("An agent whose profiles do not load refuses to start, naming the folder") {
  testing::TempDir dir;
  testing::FakeAgentWorld world;
  dir.WriteFile("profiles/sim-vllm.json", R"({"name": "sim-vllm", "role": "ENGINE", "colour": 1})");
  v1::AgentConfig config;
  config.set_work_dir(dir.File("work"));
  config.set_profiles_dir(dir.File("profiles"));
  auto agent = agent::Agent::Create(config, world.Seams());
  REQUIRE_FALSE(agent.ok());
  CHECK(agent.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(agent.status().message()),
             Catch::Contains(dir.File("profiles")) && Catch::Contains("colour"));
}

TEST_CASE("An agent whose work dir cannot be created fails with the path") {
  testing::TempDir dir;
  testing::FakeAgentWorld world;
  dir.WriteFile("file", "not a directory");
  v1::AgentConfig config;
  config.set_work_dir(dir.File("file/work"));
  auto agent = agent::Agent::Create(config, world.Seams());
  REQUIRE_FALSE(agent.ok());
  CHECK(agent.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(agent.status().message()).find(dir.File("file/work")) != std::string::npos);
}

}  // namespace
}  // namespace kvbench
