#include "agent/release/supported_releases.h"

#include <catch2/catch.hpp>

namespace kvbench::agent::release {
namespace {

ProgramRelease Vllm(std::string version) {
  ProgramRelease release;
  release.profile = "vllm-nvidia";
  release.component = kVllmComponent;
  release.version = std::move(version);
  release.probe = "vllm --version";
  return release;
}

TEST_CASE("Versions compare numerically, a pre-release below its release") {
  CHECK(CompareVersions("0.11.1", "0.11.1") == 0);
  CHECK(CompareVersions("0.11.10", "0.11.9") == 1);
  CHECK(CompareVersions("0.9", "0.11.1") == -1);
  CHECK(CompareVersions("0.12.0rc1", "0.12.0") == -1);
  CHECK(CompareVersions("0.11.1.dev3+g12ab", "0.11.1") == -1);
  CHECK(CompareVersions("0.33.0+cu128", "0.33.0") == 0);
  CHECK(CompareVersions("v2.6.2", "2.6.2") == 0);
  CHECK(CompareVersions("1", "0.99.99") == 1);
}

TEST_CASE("A vLLM below the minimum is refused naming the version, the minimum and why") {
  const absl::Status old = CheckSupportedRelease(Vllm("0.10.2"));
  CHECK(old.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(old.message())
            .find("vllm of profile vllm-nvidia is 0.10.2, below kvbench's "
                  "minimum 0.11.1") != std::string::npos);
  CHECK(std::string(old.message()).find("external_prefix_cache") != std::string::npos);
  CHECK(CheckSupportedRelease(Vllm("0.11.1")).ok());
  CHECK(CheckSupportedRelease(Vllm("0.33.0")).ok());
  CHECK(CheckSupportedRelease(Vllm("")).ok());  // unknown: the release decides at start
  ProgramRelease simulated = Vllm("0.9.0");
  simulated.simulated = true;
  CHECK(std::string(CheckSupportedRelease(simulated).message()).find("vllm (simulated)") !=
        std::string::npos);
}

TEST_CASE("An LMCache whose help lacks a flag kvbench renders is refused naming the flags") {
  ProgramRelease lmcache;
  lmcache.profile = "lmcache-nvme";
  lmcache.component = kLmcacheComponent;
  lmcache.version = "0.3.1";
  lmcache.probe = "lmcache server --help";
  lmcache.flags_known = true;
  lmcache.flags = {"--host",       "--port",       "--http-host",
                   "--http-port",  "--l1-size-gb", "--eviction-policy",
                   "--max-workers"};
  const absl::Status missing = CheckSupportedRelease(lmcache);
  CHECK(missing.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(missing.message()).find("lacks --l2-adapter") != std::string::npos);
  lmcache.flags.insert("--l2-adapter");
  CHECK(CheckSupportedRelease(lmcache).ok());
  lmcache.flags_known = false;  // help unread
  lmcache.flags.clear();
  CHECK(CheckSupportedRelease(lmcache).ok());
}

TEST_CASE("Every component of the table says why its minimum") {
  for (const SupportedRelease& supported : SupportedReleases()) {
    CHECK_FALSE(supported.why.empty());
    CHECK((!supported.minimum_version.empty() || !supported.required_flags.empty()));
  }
}

}  // namespace
}  // namespace kvbench::agent::release
