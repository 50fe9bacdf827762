// `kvctl agents` says what each agent's preflight keeps off it and why; `kvctl
// doctor` runs the preflight of kvctl run's host for real and exits 5 when a check FAILs.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/component/controller/kvctl/fake_controller.h"
#include "tests/component/controller/kvctl/kvctl_test_helpers.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {
namespace {

using Catch::Contains;

v1::PreflightCheck Failing(const std::string& name, std::vector<v1::Tier> tiers,
                           std::vector<std::string> profiles, const std::string& detail,
                           const std::string& remedy) {
  v1::PreflightCheck check;
  check.set_name(name);
  check.set_status(v1::PREFLIGHT_FAIL);
  check.set_detail(detail);
  check.set_remedy(remedy);
  for (v1::Tier tier : tiers) check.add_tiers(tier);
  for (const std::string& profile : profiles) check.add_profiles(profile);
  return check;
}

TEST_CASE("kvctl agents shows which tiers an agent cannot run and why") {
  FakeController controller;
  v1::ListAgentsResponse response;
  v1::AgentView* shm = response.add_agents();
  shm->set_state(v1::AGENT_STATE_CONNECTED);
  shm->mutable_capabilities()->set_agent_id("shm-node");
  *shm->mutable_capabilities()->add_preflight() =
      Failing("nvme.block_device", {v1::NVME}, {},
              "nvme_cache_dir /w/nvme (-> /dev/shm/x) is on tmpfs (RAM)",
              "set nvme_cache_dir to a folder on an NVMe block device");
  *shm->mutable_capabilities()->add_preflight() =
      Failing("binary.vllm-nvidia", {}, {"vllm-nvidia"}, "vllm not found", "install vLLM");
  v1::PreflightCheck warning;
  warning.set_name("datasets");
  warning.set_status(v1::PREFLIGHT_WARN);
  *shm->mutable_capabilities()->add_preflight() = warning;
  v1::AgentView* good = response.add_agents();
  good->set_state(v1::AGENT_STATE_CONNECTED);
  good->mutable_capabilities()->set_agent_id("good-node");
  controller.SetAgents(response);
  const std::map<std::string, std::string> env = {{"KV_CONTROLLER", controller.address()},
                                                  {"KV_INSECURE", "1"}};

  KvctlRun run = RunKvctl({"agents"}, env);
  REQUIRE(run.exit_code == 0);
  INFO(run.out);
  CHECK_THAT(run.out, Contains("CANNOT_RUN"));
  CHECK_THAT(run.out, Contains("NVME; profiles vllm-nvidia"));
  CHECK_THAT(run.out, Contains("shm-node cannot run NVME: preflight nvme.block_device FAILs: "
                               "nvme_cache_dir /w/nvme (-> /dev/shm/x) is on tmpfs (RAM)\n"
                               "  → set nvme_cache_dir to a folder on an NVMe block device\n"));
  CHECK_THAT(run.out, Contains("shm-node cannot run every tier of profile vllm-nvidia: preflight "
                               "binary.vllm-nvidia FAILs: vllm not found\n"));
  CHECK_THAT(run.out, Contains("shm-node: 1 preflight warning (kvctl agents --output json)"));
  CHECK_THAT(run.out, !Contains("good-node cannot"));

  const nlohmann::json json = nlohmann::json::parse(RunKvctl({"agents", "-o", "json"}, env).out);
  CHECK(json[0]["capabilities"]["preflight"][0]["name"] == "nvme.block_device");
  CHECK(json[0]["capabilities"]["preflight"][0]["tiers"][0] == "NVME");
}

TEST_CASE("kvctl doctor fails an NVMe pool on tmpfs, naming it, with exit 5") {
  if (!std::filesystem::is_directory("/dev/shm")) {
    SUCCEED("no /dev/shm here: nothing to check");
    return;
  }
  TempDir dir;
  const std::string shm = "/dev/shm/kvctl-doctor-test-" + std::to_string(::getpid());
  std::filesystem::create_directories(shm);
  std::filesystem::create_directory_symlink(shm, dir.File("nvme"));
  // One profile, a program that exists everywhere (its version cannot be read: a WARN).
  dir.WriteFile("profiles/sim-lmcache.json",
                R"({"name": "sim-lmcache", "role": "CACHE_SERVER", "engine": "SIM",
                    "tiers": ["CPU_RAM", "NVME"], "command": ["/bin/true", "server"],
                    "simulated": true})");
  KvctlRun run = RunKvctl({"doctor", "--profiles", dir.File("profiles"), "--nvme-cache-dir",
                           dir.File("nvme"), "--out", dir.File("out")});
  std::filesystem::remove_all(shm);
  INFO(run.out << run.err);
  CHECK(run.exit_code == 5);
  CHECK_THAT(run.out, Contains("kvctl doctor: the preflight of kvctl run on this host"));
  CHECK_THAT(run.out, Contains("FAIL    nvme.block_device") && Contains(dir.File("nvme")) &&
                          Contains("tmpfs"));
  CHECK_THAT(run.out, Contains("SKIP    gpu.amd"));
  CHECK_THAT(run.err, Contains("nvme.block_device"));

  KvctlRun json = RunKvctl(
      {"doctor", "--profiles", dir.File("profiles"), "--out", dir.File("out"), "-o", "json"});
  INFO(json.out << json.err);
  const nlohmann::json report = nlohmann::json::parse(json.out);
  CHECK(report["checks"].size() > 10);
  CHECK(report.contains("versions"));
}

}  // namespace
}  // namespace kvbench::testing
