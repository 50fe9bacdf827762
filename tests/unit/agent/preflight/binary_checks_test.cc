// binary.<profile> (agent/preflight/binary_checks.h): programs found or not, releases held to
// kvbench's minimum (agent/release/supported_releases.h), probes run once per program.
#include "agent/preflight/binary_checks.h"

#include <catch2/catch.hpp>

#include "tests/fakes/fake_preflight_probes.h"
#include "tests/unit/agent/preflight/preflight_test_profiles.h"

namespace kvbench::testing {
namespace {

using agent::preflight::CheckBinaries;
using Catch::Contains;

TEST_CASE("binary: every profile's program found at a supported release passes") {
  FakePreflightProbes probes;
  std::vector<v1::ComponentVersion> versions;
  const auto checks = CheckBinaries(ShippedProfiles(), probes, &versions);
  REQUIRE(checks.size() == 6);
  for (const v1::PreflightCheck& check : checks) {
    INFO(check.name() << ": " << check.detail());
    CHECK(check.status() == v1::PREFLIGHT_OK);
  }
  CHECK_THAT(Named(checks, "binary.vllm-nvidia").detail(), Contains("/opt/kv/bin/vllm: vllm "));
  CHECK_THAT(Named(checks, "binary.sim-vllm").detail(), Contains("(simulated)"));
  // vllm-nvidia and vllm-amd run the same `vllm serve`: probed once; lmcache-cpu and -nvme too.
  CHECK(probes.release_probes() == 4);
  CHECK(versions.size() == 4);
}

TEST_CASE("binary: a missing program keeps only its profile's scenarios off the node") {
  FakePreflightProbes probes;
  probes.MissProgram("vllm");
  probes.MissProgram("lmcache");
  std::vector<v1::ComponentVersion> versions;
  const auto checks = CheckBinaries(ShippedProfiles(), probes, &versions);
  const v1::PreflightCheck& engine = Named(checks, "binary.vllm-nvidia");
  CHECK(engine.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(engine.detail(), Contains("vllm not found"));
  CHECK_THAT(engine.remedy(), Contains("pip install vllm") && Contains("vllm-nvidia.json"));
  CHECK(engine.tiers().empty());  // an engine serves every tier
  CHECK(Profiles(engine) == std::vector<std::string>{"vllm-nvidia"});
  const v1::PreflightCheck& cache = Named(checks, "binary.lmcache-nvme");
  CHECK(cache.status() == v1::PREFLIGHT_FAIL);
  CHECK(Tiers(cache) == std::vector<v1::Tier>{v1::NVME});
  CHECK(Profiles(cache) == std::vector<std::string>{"lmcache-nvme"});
  CHECK(Named(checks, "binary.sim-vllm").status() == v1::PREFLIGHT_OK);
}

TEST_CASE("binary: a release below kvbench's minimum fails, naming version and minimum") {
  FakePreflightProbes probes;
  probes.SetVersion("vllm", "0.0.1");
  std::vector<v1::ComponentVersion> versions;
  const auto checks = CheckBinaries(SomeProfiles({"vllm-nvidia"}), probes, &versions);
  const v1::PreflightCheck& engine = Named(checks, "binary.vllm-nvidia");
  CHECK(engine.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(engine.detail(), Contains("0.0.1"));
  CHECK_THAT(engine.remedy(), Contains("upgrade vllm"));
  CHECK(Profiles(engine) == std::vector<std::string>{"vllm-nvidia"});
  REQUIRE(versions.size() == 1);
  CHECK(versions[0].component() == "vllm");
  CHECK(versions[0].version() == "0.0.1");
}

TEST_CASE("binary: a version that cannot be read warns, naming the probe") {
  FakePreflightProbes probes;
  probes.SetVersion("vllm", "");
  std::vector<v1::ComponentVersion> versions;
  const auto checks = CheckBinaries(SomeProfiles({"vllm-nvidia"}), probes, &versions);
  const v1::PreflightCheck& engine = Named(checks, "binary.vllm-nvidia");
  CHECK(engine.status() == v1::PREFLIGHT_WARN);
  CHECK_THAT(engine.detail(), Contains("version unknown"));
  CHECK_THAT(engine.remedy(), Contains("/opt/kv/bin/vllm --version"));
}

}  // namespace
}  // namespace kvbench::testing
