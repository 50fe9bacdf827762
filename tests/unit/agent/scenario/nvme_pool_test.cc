// The NVME tier's pool dirs (agent/scenario/scenario_wiring): each is marked with its owner when
// made, and an owner's start removes only the pools it marked (otherwise an agent crash
// during an NVME scenario leaves up to nvme_pool_gb behind for good). Real folders in a temp dir.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "agent/scenario/free_space.h"
#include "agent/scenario/scenario_wiring.h"
#include "tests/support/temp_dir.h"

namespace kvbench::agent {
namespace {

namespace fs = std::filesystem;

v1::Scenario NvmeScenario(const std::string& job, const std::string& id) {
  v1::Scenario scenario;
  scenario.set_job_id(job);
  scenario.set_scenario_id(id);
  scenario.set_tier(v1::NVME);
  return scenario;
}

TEST_CASE("A pool dir is made empty and marked, and its owner's sweep removes only its own",
          "[nvme_pool]") {
  testing::TempDir dir;
  const std::string pools = dir.File("nvme");
  const std::string ours = dir.File("agent-a/run");
  const std::string theirs = dir.File("agent-b/run");

  absl::StatusOr<std::string> first =
      WipedNvmeDir(pools, NvmeScenario("j1", "02-nvme-c2"), ours, 0);
  REQUIRE(first.ok());
  CHECK(*first == pools + "/j1-02-nvme-c2");
  std::ofstream(*first + "/chunk-0") << "kv bytes";  // what the cache server wrote
  // Made again (a retry): emptied but for its mark.
  REQUIRE(WipedNvmeDir(pools, NvmeScenario("j1", "02-nvme-c2"), ours, 0).ok());
  CHECK_FALSE(fs::exists(*first + "/chunk-0"));
  CHECK(dir.ReadFile("nvme/j1-02-nvme-c2/.kvbench-pool-owner") == ours + "\n");

  REQUIRE(WipedNvmeDir(pools, NvmeScenario("j2", "05-nvme-c16"), theirs, 0).ok());
  fs::create_directories(pools + "/someone-elses");  // no mark: never ours to remove

  CHECK(SweepNvmePools(pools, ours) == 1);
  CHECK_FALSE(fs::exists(*first));
  CHECK(fs::exists(pools + "/j2-05-nvme-c16"));
  CHECK(fs::exists(pools + "/someone-elses"));
  CHECK(SweepNvmePools(pools, ours) == 0);
  CHECK(SweepNvmePools(pools, theirs) == 1);
  CHECK(SweepNvmePools("", ours) == 0);  // a node without an NVMe cache dir
  CHECK(SweepNvmePools(dir.File("missing"), ours) == 0);
}

TEST_CASE("A pool dir needs an NVMe cache dir", "[nvme_pool]") {
  CHECK(absl::IsFailedPrecondition(
      WipedNvmeDir("", NvmeScenario("j1", "02-nvme-c2"), "/w/run", 0).status()));
}

TEST_CASE("A pool dir is refused when its file system has less free than the pool's size",
          "[nvme_pool]") {
  // A pool that fills its disk fails its L2 stores; the scenario must not
  // start. The free space is this machine's own (statvfs), read the same way.
  testing::TempDir dir;
  const std::string pools = dir.File("nvme");
  const std::optional<int64_t> free = FreeBytesUnder(pools);
  REQUIRE(free.has_value());
  REQUIRE(*free > 0);
  absl::StatusOr<std::string> refused =
      WipedNvmeDir(pools, NvmeScenario("j1", "02-nvme-c2"), "/w/run", *free * 4);
  REQUIRE(absl::IsFailedPrecondition(refused.status()));
  CHECK_THAT(std::string(refused.status().message()), Catch::Contains("the NVMe pool needs") &&
                                                          Catch::Contains(pools) &&
                                                          Catch::Contains("GiB free"));
  CHECK_FALSE(fs::exists(pools + "/j1-02-nvme-c2"));  // nothing left behind
  CHECK(WipedNvmeDir(pools, NvmeScenario("j1", "02-nvme-c2"), "/w/run", *free / 4).ok());
}

}  // namespace
}  // namespace kvbench::agent
