// The whole preflight (agent/preflight/preflight.h): its checks in order, what it exits with,
// how kv-agent --preflight and kvctl doctor print it, and the agent's monitor of it.
#include "agent/preflight/preflight.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "agent/preflight/preflight_monitor.h"
#include "agent/preflight/preflight_printer.h"
#include "tests/fakes/fake_preflight_probes.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"
#include "tests/unit/agent/preflight/preflight_test_profiles.h"

namespace kvbench::testing {
namespace {

using agent::preflight::Preflight;
using agent::preflight::PreflightInput;
using agent::preflight::PreflightMonitor;
using agent::preflight::PreflightReport;
using Catch::Contains;

PreflightInput Input(const TempDir& dir) {
  v1::AgentConfig config;
  config.set_nvme_cache_dir(dir.File("nvme"));
  config.set_dataset_cache_dir(dir.File("datasets"));
  PreflightInput input = PreflightInput::ForAgentConfig(config);
  input.listen_address = "127.0.0.1:9464";
  return input;
}

std::vector<std::string> Names(const std::vector<v1::PreflightCheck>& checks) {
  std::vector<std::string> names;
  for (const v1::PreflightCheck& check : checks) names.push_back(check.name());
  return names;
}

TEST_CASE("preflight: every check once, in a fixed order, with the versions probed") {
  TempDir dir;
  FakePreflightProbes probes;
  const auto profiles = ShippedProfiles();
  const PreflightReport report = Preflight(Input(dir), &profiles, &probes).RunAll();
  CHECK(Names(report.checks) ==
        std::vector<std::string>{"binary.lmcache-cpu", "binary.lmcache-nvme", "binary.sim-lmcache",
                                 "binary.sim-vllm", "binary.vllm-amd", "binary.vllm-nvidia",
                                 "gpu.nvidia", "gpu.amd", "gpu.visible_devices", "nvme.dir",
                                 "nvme.block_device", "nvme.o_direct", "nvme.free_space",
                                 "nvme.page_cache", "ports", "model_roots", "datasets"});
  REQUIRE_FALSE(report.versions.empty());
  CHECK(report.versions[0].component() == "kvbench");
  CHECK(agent::preflight::PreflightOutcome(report).ok());  // the datasets WARN passes
}

TEST_CASE(
    "preflight: the cheap checks are the ones that start no program and load no GPU library") {
  TempDir dir;
  FakePreflightProbes probes;
  const auto profiles = ShippedProfiles();
  const std::vector<v1::PreflightCheck> cheap =
      Preflight(Input(dir), &profiles, &probes).RunCheap();
  CHECK(Names(cheap) == std::vector<std::string>{"nvme.dir", "nvme.block_device", "nvme.o_direct",
                                                 "nvme.free_space", "nvme.page_cache", "ports",
                                                 "model_roots", "datasets"});
  CHECK(probes.release_probes() == 0);
}

TEST_CASE("preflight: a FAIL makes the outcome FAILED_PRECONDITION (exit 5) naming the checks") {
  TempDir dir;
  FakePreflightProbes probes;
  probes.SetFileSystem(FakePreflightProbes::kTmpfs);
  probes.MissProgram("vllm");
  const auto profiles = ShippedProfiles();
  const PreflightReport report = Preflight(Input(dir), &profiles, &probes).RunAll();
  const absl::Status outcome = agent::preflight::PreflightOutcome(report);
  CHECK(outcome.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(outcome.message()) ==
        "preflight: 3 checks FAIL: binary.vllm-amd, binary.vllm-nvidia, nvme.block_device");
}

TEST_CASE("preflight: with a job, a FAIL none of its scenarios meets is a SKIP") {
  TempDir dir;
  FakePreflightProbes probes;
  probes.MissProgram("vllm");
  probes.MissProgram("lmcache");
  const auto profiles = ShippedProfiles();
  PreflightInput input = Input(dir);
  v1::JobSpec spec;
  spec.set_engine(v1::SIM);
  spec.add_tiers(v1::GPU);
  spec.add_tiers(v1::NVME);
  spec.mutable_dataset()->set_code("tau2-bench-v1");  // pulled at start: a WARN
  input.spec = spec;
  PreflightReport report = Preflight(input, &profiles, &probes).RunAll();
  const v1::PreflightCheck& vllm = Named(report.checks, "binary.vllm-nvidia");
  CHECK(vllm.status() == v1::PREFLIGHT_SKIP);
  CHECK_THAT(vllm.detail(), Contains("not used by this job: vllm not found"));
  CHECK(agent::preflight::PreflightOutcome(report).ok());
  // The real engine's job runs vllm-nvidia and lmcache-nvme (not lmcache-cpu: no CPU_RAM tier).
  spec.set_engine(v1::VLLM);
  spec.set_build(v1::NVIDIA);
  input.spec = spec;
  report = Preflight(input, &profiles, &probes).RunAll();
  CHECK(Named(report.checks, "binary.vllm-nvidia").status() == v1::PREFLIGHT_FAIL);
  CHECK(Named(report.checks, "binary.lmcache-nvme").status() == v1::PREFLIGHT_FAIL);
  CHECK(Named(report.checks, "binary.lmcache-cpu").status() == v1::PREFLIGHT_SKIP);
  CHECK(Named(report.checks, "binary.vllm-amd").status() == v1::PREFLIGHT_SKIP);
}

TEST_CASE("preflight: printed one aligned line per check, a remedy under what does not pass") {
  TempDir dir;
  FakePreflightProbes probes;
  probes.SetFileSystem(FakePreflightProbes::kTmpfs);
  const auto profiles = SomeProfiles({"sim-vllm", "sim-lmcache"});
  const PreflightReport report = Preflight(Input(dir), &profiles, &probes).RunAll();
  std::ostringstream out;
  agent::preflight::PrintPreflight(report, out);
  const std::string text = out.str();
  INFO(text);
  CHECK(text.rfind("STATUS  CHECK                DETAIL\n", 0) == 0);
  CHECK_THAT(text, Contains("\nOK      binary.sim-vllm      /opt/kv/bin/kvsim-vllm: vllm "));
  CHECK_THAT(text, Contains("\nFAIL    nvme.block_device    nvme_cache_dir "));
  CHECK_THAT(text, Contains("\n                             → set nvme_cache_dir to a folder on "
                            "a local NVMe block device's file system (ext4, xfs), e.g. "
                            "/mnt/nvme/kvbench [keeps off this node: NVME]\n"));
  CHECK_THAT(text, Contains("\nSKIP    gpu.nvidia           no NVIDIA GPU: NVML not loadable"));
  CHECK_THAT(text, Contains("\nversions: kvbench "));
  CHECK_THAT(text, Contains("\npreflight: 1 FAIL, 1 WARN, "));

  const nlohmann::json json = nlohmann::json::parse(agent::preflight::PreflightJson(report));
  CHECK(json["failed"] == 1);
  CHECK(json["checks"].size() == report.checks.size());
  bool found = false;
  for (const auto& check : json["checks"]) {
    if (check["name"] != "nvme.block_device") continue;
    found = true;
    CHECK(check["status"] == "PREFLIGHT_FAIL");
    CHECK(check["tiers"] == nlohmann::json::array({"NVME"}));
  }
  CHECK(found);
}

TEST_CASE("monitor: a re-run replaces the cheap checks and keeps the start's others") {
  TempDir dir;
  FakePreflightProbes probes;
  probes.MissProgram("vllm");
  const auto profiles = ShippedProfiles();
  const Preflight preflight(Input(dir), &profiles, &probes);
  PreflightMonitor monitor(&preflight, preflight.RunAll().checks);
  auto not_passing = Names(monitor.NotPassing());
  CHECK(not_passing ==
        std::vector<std::string>{"binary.vllm-amd", "binary.vllm-nvidia", "datasets"});

  probes.SetFileSystem(FakePreflightProbes::kTmpfs);
  monitor.RequestRecheck([] { return true; });
  REQUIRE(WaitFor([&] { return monitor.rechecks() == 1; }));
  not_passing = Names(monitor.NotPassing());
  CHECK(not_passing == std::vector<std::string>{"binary.vllm-amd", "binary.vllm-nvidia",
                                                "nvme.block_device", "datasets"});

  // A re-run that ends while a scenario runs is dropped: the scenario's pool and ports are not
  // the node's state.
  probes.SetFileSystem(FakePreflightProbes::kExt4);
  monitor.RequestRecheck([] { return false; });
  monitor.Stop();
  CHECK(monitor.rechecks() == 1);
  CHECK(Named(monitor.Latest(), "nvme.block_device").status() == v1::PREFLIGHT_FAIL);
  monitor.RequestRecheck([] { return true; });  // stopped: a no-op
  CHECK(monitor.rechecks() == 1);
}

}  // namespace
}  // namespace kvbench::testing
