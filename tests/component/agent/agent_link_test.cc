// The kv-agent's composition: an Agent with a controller_address dials it, registers what the
// node offers, and stops cleanly.
#include <prometheus/registry.h>

#include <catch2/catch.hpp>

#include "agent/agent.h"
#include "common/version/version.h"
#include "tests/component/agent/link/fake_agent_link_service.h"
#include "tests/fakes/fake_agent_world.h"
#include "tests/fakes/fake_sleeper.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

TEST_CASE("An agent with a controller_address registers what the node offers", "[link]") {
  TempDir dir;
  FakeAgentWorld world;
  FakeExecutor& executor = world.executor;
  FakeControllerServer server;
  v1::AgentConfig config;
  config.set_agent_id("node-7");
  config.set_controller_address(server.address());
  config.set_insecure(true);
  config.set_work_dir(dir.File("work"));
  config.set_profiles_dir(KV_PROFILES_DIR);
  config.set_nvme_cache_dir(dir.path());
  config.set_heartbeat_interval_s(0.05);
  v1::GpuInfo* gpu = config.add_gpus();
  gpu->set_index(0);
  gpu->set_vendor(v1::NVIDIA);
  gpu->set_name("NVIDIA H200");
  (*config.mutable_labels())["zone"] = "a";

  auto agent = agent::Agent::Create(config, world.Seams());
  REQUIRE(agent.ok());
  REQUIRE((*agent)->link() != nullptr);
  (*agent)->Start();
  // The link runs on the stepped executor: the test turns it while waiting.
  REQUIRE(WaitFor([&] {
    executor.RunUntilIdle();
    return (*agent)->link()->connected();
  }));
  const std::vector<v1::Register> registrations = server.service().registrations();
  REQUIRE(registrations.size() == 1);
  const v1::AgentCapabilities& capabilities = registrations[0].capabilities();
  CHECK(capabilities.agent_id() == "node-7");
  CHECK(capabilities.version() == kVersion);
  CHECK(!capabilities.hostname().empty());
  REQUIRE(capabilities.gpus_size() == 1);
  CHECK(capabilities.gpus(0).name() == "NVIDIA H200");
  CHECK(capabilities.cpu_memory_bytes() > 0);
  CHECK(capabilities.cpu_cores() > 0);
  CHECK(capabilities.nvme_cache_path() == dir.path());
  CHECK(capabilities.nvme_free_bytes() > 0);
  CHECK(capabilities.profiles_size() == 6);
  CHECK(capabilities.labels().at("zone") == "a");
  REQUIRE(WaitFor([&] {
    executor.AdvanceTime(absl::Milliseconds(50));
    return !server.service().heartbeats().empty();
  }));

  (*agent)->Shutdown();
  CHECK_FALSE((*agent)->link()->connected());
}

// The preflight's checks and versions go with the registration; the cheap checks are
// re-run while idle and what does not pass rides on the heartbeats.
TEST_CASE("An agent registers its preflight and heartbeats the checks that stop passing",
          "[link][preflight]") {
  TempDir dir;
  FakeAgentWorld world;
  FakeExecutor& executor = world.executor;
  FakePreflightProbes& probes = world.probes;
  FakeControllerServer server;
  v1::AgentConfig config;
  config.set_agent_id("node-9");
  config.set_controller_address(server.address());
  config.set_insecure(true);
  config.set_work_dir(dir.File("work"));
  config.set_profiles_dir(KV_PROFILES_DIR);
  config.set_nvme_cache_dir(dir.File("nvme"));
  config.set_heartbeat_interval_s(1);

  auto agent = agent::Agent::Create(config, world.Seams());
  REQUIRE(agent.ok());
  (*agent)->Start();
  REQUIRE(WaitFor([&] {
    executor.RunUntilIdle();
    return (*agent)->link()->connected();
  }));
  const v1::AgentCapabilities capabilities = server.service().registrations().at(0).capabilities();
  auto find = [](const auto& checks, const std::string& name) -> const v1::PreflightCheck* {
    for (const v1::PreflightCheck& check : checks) {
      if (check.name() == name) return &check;
    }
    return nullptr;
  };
  REQUIRE(find(capabilities.preflight(), "nvme.block_device") != nullptr);
  CHECK(find(capabilities.preflight(), "nvme.block_device")->status() == v1::PREFLIGHT_OK);
  CHECK(find(capabilities.preflight(), "binary.sim-vllm") != nullptr);
  CHECK(find(capabilities.preflight(), "gpu.nvidia")->status() == v1::PREFLIGHT_SKIP);
  bool kvbench_version = false;
  for (const v1::ComponentVersion& version : capabilities.versions()) {
    kvbench_version |= version.component() == "kvbench" && version.version() == kVersion;
  }
  CHECK(kvbench_version);

  // The NVMe dir's file system turns out to be tmpfs: a re-run within a minute of idling says so.
  probes.SetFileSystem(FakePreflightProbes::kTmpfs);
  const int statfs_before = probes.statfs_calls();
  REQUIRE(WaitFor([&] {
    executor.AdvanceTime(absl::Seconds(5));
    return (*agent)->preflight().rechecks() >= 1;
  }));
  CHECK(probes.statfs_calls() > statfs_before);
  REQUIRE(WaitFor([&] {
    executor.AdvanceTime(absl::Seconds(1));
    const std::vector<v1::Heartbeat> heartbeats = server.service().heartbeats();
    return !heartbeats.empty() &&
           find(heartbeats.back().preflight(), "nvme.block_device") != nullptr;
  }));
  const v1::Heartbeat last = server.service().heartbeats().back();
  const v1::PreflightCheck* failed = find(last.preflight(), "nvme.block_device");
  CHECK(failed->status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(failed->detail(), Catch::Contains("tmpfs"));
  REQUIRE(failed->tiers_size() == 1);
  CHECK(failed->tiers(0) == v1::NVME);
  // Only what does not pass rides on a heartbeat.
  for (const v1::PreflightCheck& check : last.preflight()) {
    CHECK(check.status() != v1::PREFLIGHT_OK);
    CHECK(check.status() != v1::PREFLIGHT_SKIP);
  }
  (*agent)->Shutdown();
}

TEST_CASE("An agent whose TLS files do not load refuses to start, naming them", "[link]") {
  TempDir dir;
  FakeAgentWorld world;
  v1::AgentConfig config;
  config.set_agent_id("node-8");
  config.set_controller_address("127.0.0.1:1");
  config.set_work_dir(dir.File("work"));
  config.set_profiles_dir(KV_PROFILES_DIR);
  config.mutable_tls()->set_ca_cert_path(dir.File("missing-ca.pem"));
  config.mutable_tls()->set_cert_path(dir.File("missing-cert.pem"));
  config.mutable_tls()->set_key_path(dir.File("missing-key.pem"));
  auto agent = agent::Agent::Create(config, world.Seams());
  REQUIRE_FALSE(agent.ok());
  CHECK_THAT(std::string(agent.status().message()), Catch::Contains("missing-"));
}

}  // namespace
}  // namespace kvbench::testing
