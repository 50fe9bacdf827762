// kvctl run's agent is kv-agent's agent (agent/agent.h, one start-up): the same Agent::Create with
// kvctl run's config and seams (agent/local/local_run_config.h) must show every behaviour the
// daemon has — a private root, scenario retention, heartbeats that carry the NVMe pool's free
// space, Register as the first message — in its own layout (results under --out).

#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "agent/agent.h"
#include "agent/local/local_run_config.h"
#include "tests/fakes/fake_agent_world.h"
#include "tests/fakes/fake_link_transport.h"
#include "tests/support/temp_dir.h"

namespace kvbench {
namespace {

namespace fs = std::filesystem;

constexpr double kParityRetentionDays = 30;
constexpr double kParityHeartbeatSeconds = 0.5;

// An agent's config and seams, as kv-agent or kvctl run makes them.
struct ParitySetup {
  std::string name;
  v1::AgentConfig config;
  agent::AgentSeams seams;
};

ParitySetup DaemonSetup(const testing::TempDir& dir) {
  ParitySetup setup;
  setup.name = "kv-agent";
  setup.config.set_agent_id("node-1");
  setup.config.set_work_dir(dir.File("work"));
  setup.config.set_profiles_dir(KV_PROFILES_DIR);
  setup.config.set_nvme_cache_dir(dir.File("nvme"));
  setup.config.set_scenario_retention_days(kParityRetentionDays);
  return setup;
}

ParitySetup LocalRunSetup(const testing::TempDir& dir) {
  agent::LocalRunOptions options;
  options.out_dir = dir.File("results");
  options.profiles_dir = KV_PROFILES_DIR;
  options.scenario_retention_days = kParityRetentionDays;
  ParitySetup setup;
  setup.name = "kvctl run";
  setup.config = agent::LocalRunConfig::AgentConfig(options, "job-1");
  setup.seams = agent::LocalRunConfig::Seams(options, "job-1");
  return setup;
}

// An attempt folder whose every entry last changed at `at`.
std::string MakeAgedAttempt(const agent::WorkDirLayout& layout, const std::string& job,
                            absl::Time at) {
  const std::string dir = layout.ScenarioDir(job, "00-gpu-c2");
  fs::create_directories(dir);
  std::ofstream(dir + "/result.json") << "{}";
  for (const std::string& path : {dir + "/result.json", dir}) {
    const timespec times[2] = {absl::ToTimespec(at), absl::ToTimespec(at)};
    REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
  }
  return dir;
}

TEST_CASE("kvctl run's agent has every behaviour of kv-agent's", "[agent]") {
  for (ParitySetup (*make)(const testing::TempDir&) : {DaemonSetup, LocalRunSetup}) {
    testing::TempDir dir;
    testing::FakeAgentWorld world;
    ParitySetup setup = make(dir);
    INFO(setup.name);
    setup.config.set_heartbeat_interval_s(kParityHeartbeatSeconds);
    agent::AgentSeams seams = world.Seams();
    seams.layout = setup.seams.layout;
    seams.extra_dataset_roots = setup.seams.extra_dataset_roots;
    seams.allow_user_dataset_paths = setup.seams.allow_user_dataset_paths;
    const agent::WorkDirLayout layout =
        seams.layout.value_or(agent::WorkDirLayout::ForWorkDir(setup.config.work_dir()));
    const std::string expired =
        MakeAgedAttempt(layout, "old-job", world.clock.Now() - absl::Hours(24 * 40));
    const std::string recent =
        MakeAgedAttempt(layout, "new-job", world.clock.Now() - absl::Hours(24));
    auto transport = std::make_unique<testing::FakeLinkTransport>();
    testing::FakeLinkTransport* link = transport.get();

    auto agent = agent::Agent::Create(setup.config, seams, std::move(transport));
    REQUIRE(agent.ok());
    // Private: the root (work dir; kvctl run's <out>/.run) is the agent's user's alone.
    struct stat root {};
    REQUIRE(::stat(layout.root().c_str(), &root) == 0);
    CHECK((root.st_mode & 0777) == 0700);
    // Locked: a second agent of the same root is refused, naming the first.
    agent::AgentSeams again = world.Seams();
    again.layout = setup.seams.layout;
    auto second = agent::Agent::Create(setup.config, again);
    REQUIRE_FALSE(second.ok());
    CHECK_THAT(std::string(second.status().message()),
               Catch::Contains("is in use by") && Catch::Contains(layout.owner()));

    (*agent)->Start();
    // Retention: the expired attempt goes at start, the recent one stays.
    CHECK_FALSE(fs::exists(expired));
    CHECK(fs::exists(recent));
    // Register first, then heartbeats with the pool's free space once registered.
    world.executor.RunUntilIdle();
    REQUIRE(link->opens() == 1);
    REQUIRE_FALSE(link->writes(0).empty());
    CHECK(link->writes(0).front().has_register_());
    CHECK(link->writes(0).front().register_().capabilities().nvme_free_bytes() > 0);
    v1::ControllerMessage registered;
    registered.mutable_registered()->set_heartbeat_interval_s(kParityHeartbeatSeconds);
    link->Deliver(registered);
    world.executor.RunUntilIdle();
    world.executor.AdvanceTime(absl::Seconds(2 * kParityHeartbeatSeconds));
    int heartbeats_with_free_space = 0;
    for (const v1::AgentMessage& message : link->writes(0)) {
      heartbeats_with_free_space +=
          message.has_heartbeat() && message.heartbeat().has_nvme_free_bytes();
    }
    CHECK(heartbeats_with_free_space >= 1);
    (*agent)->Shutdown();
  }
}

}  // namespace
}  // namespace kvbench
