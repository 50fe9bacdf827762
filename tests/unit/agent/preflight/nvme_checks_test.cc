// The nvme.* checks (agent/preflight/nvme_checks.h) on a real folder with the file system, the
// mount table, O_DIRECT and /proc/meminfo faked: what keeps NVME off a node and what only warns.
#include "agent/preflight/nvme_checks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/fakes/fake_preflight_probes.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/agent/preflight/preflight_test_profiles.h"

namespace kvbench::testing {
namespace {

using agent::preflight::CheckNvme;
using Catch::Contains;

constexpr int64_t kGib = FakePreflightProbes::kGib;

TEST_CASE("nvme: a folder on an NVMe device's ext4 passes every check") {
  TempDir dir;
  FakePreflightProbes probes;
  const auto checks = CheckNvme(dir.path(), ShippedProfiles(), std::nullopt, probes);
  REQUIRE(checks.size() == 5);
  for (const v1::PreflightCheck& check : checks) {
    INFO(check.name() << ": " << check.detail());
    CHECK((check.status() == v1::PREFLIGHT_OK));
  }
  CHECK_THAT(Named(checks, "nvme.block_device").detail(),
             Contains("/dev/nvme0n1p1") && Contains("an NVMe device"));
}

TEST_CASE("nvme: a tmpfs folder is refused, naming it, and keeps NVME off the node") {
  TempDir dir;
  FakePreflightProbes probes;
  probes.SetFileSystem(FakePreflightProbes::kTmpfs);
  const auto checks = CheckNvme(dir.path(), ShippedProfiles(), std::nullopt, probes);
  const v1::PreflightCheck& device = Named(checks, "nvme.block_device");
  CHECK(device.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(device.detail(), Contains(dir.path()) && Contains("tmpfs") && Contains("RAM"));
  CHECK_THAT(device.remedy(), Contains("NVMe block device"));
  CHECK(Tiers(device) == std::vector<v1::Tier>{v1::NVME});
  CHECK(device.profiles().empty());  // the simulator's NVME scenarios too
}

TEST_CASE("nvme: an overlay folder (a container's layer) is refused with a bind-mount remedy") {
  TempDir dir;
  FakePreflightProbes probes;
  probes.SetFileSystem(FakePreflightProbes::kOverlay);
  const v1::PreflightCheck device =
      Named(CheckNvme(dir.path(), ShippedProfiles(), std::nullopt, probes), "nvme.block_device");
  CHECK(device.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(device.detail(), Contains("overlay") && Contains("container"));
  CHECK_THAT(device.remedy(), Contains("bind-mount"));
}

TEST_CASE("nvme: a symlink into tmpfs is followed and both paths are named") {
  TempDir dir;
  std::filesystem::create_directory(dir.File("real"));
  std::filesystem::create_directory_symlink(dir.File("real"), dir.File("link"));
  FakePreflightProbes probes;
  probes.SetFileSystem(FakePreflightProbes::kTmpfs);
  const v1::PreflightCheck device = Named(
      CheckNvme(dir.File("link"), ShippedProfiles(), std::nullopt, probes), "nvme.block_device");
  CHECK(device.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(device.detail(), Contains(dir.File("link") + " (-> ") && Contains("/real)"));
}

TEST_CASE("nvme: a network file system is not a local disk") {
  TempDir dir;
  FakePreflightProbes probes;
  probes.SetFileSystem(0x6969);  // NFS_SUPER_MAGIC
  const v1::PreflightCheck device =
      Named(CheckNvme(dir.path(), ShippedProfiles(), std::nullopt, probes), "nvme.block_device");
  CHECK(device.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(device.detail(), Contains("nfs"));
}

TEST_CASE("nvme: a disk that is not NVMe warns, a mapped device passes with a note") {
  TempDir dir;
  FakePreflightProbes probes;
  probes.SetFile("/proc/self/mountinfo", "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
  v1::PreflightCheck device =
      Named(CheckNvme(dir.path(), ShippedProfiles(), std::nullopt, probes), "nvme.block_device");
  CHECK(device.status() == v1::PREFLIGHT_WARN);
  CHECK_THAT(device.detail(), Contains("/dev/vda") && Contains("not an NVMe device"));
  probes.SetFile("/proc/self/mountinfo",
                 "27 1 253:0 / / rw,relatime - xfs /dev/mapper/vg-data rw\n");
  device =
      Named(CheckNvme(dir.path(), ShippedProfiles(), std::nullopt, probes), "nvme.block_device");
  CHECK(device.status() == v1::PREFLIGHT_OK);
  CHECK_THAT(device.detail(), Contains("mapped device"));
}

TEST_CASE("nvme: O_DIRECT refused fails the NVME tier") {
  TempDir dir;
  FakePreflightProbes probes;
  probes.FailDirectWrites(
      absl::FailedPreconditionError("the file system does not support O_DIRECT"));
  const v1::PreflightCheck direct =
      Named(CheckNvme(dir.path(), ShippedProfiles(), std::nullopt, probes), "nvme.o_direct");
  CHECK(direct.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(direct.detail(), Contains("O_DIRECT") && Contains(dir.path()));
  CHECK(Tiers(direct) == std::vector<v1::Tier>{v1::NVME});
}

TEST_CASE("nvme: free space below the job's pool fails only the real cache server's NVME") {
  TempDir dir;
  FakePreflightProbes probes;
  probes.SetFileSystem(FakePreflightProbes::kExt4, 10 * kGib);
  v1::JobSpec spec;
  spec.set_nvme_pool_gb(64);
  const v1::PreflightCheck with_spec =
      Named(CheckNvme(dir.path(), ShippedProfiles(), spec, probes), "nvme.free_space");
  CHECK(with_spec.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(with_spec.detail(), Contains("10.0 GiB free") && Contains("nvme_pool_gb 64"));
  CHECK(Profiles(with_spec) == std::vector<std::string>{"lmcache-nvme"});
  // Without a job, the default pool only warns: each job sets its own.
  CHECK(Named(CheckNvme(dir.path(), ShippedProfiles(), std::nullopt, probes), "nvme.free_space")
            .status() == v1::PREFLIGHT_WARN);
  // The simulator writes a thousandth of its pool.
  CHECK(Named(CheckNvme(dir.path(), SomeProfiles({"sim-vllm", "sim-lmcache"}), spec, probes),
              "nvme.free_space")
            .status() == v1::PREFLIGHT_OK);
}

TEST_CASE("nvme: a pool that fits in free RAM warns that the page cache may serve its reads") {
  TempDir dir;
  FakePreflightProbes probes;
  probes.SetFile("/proc/meminfo",
                 "MemTotal: 2113929216 kB\nMemAvailable: 1887436800 kB\nCached: 12582912 kB\n");
  const v1::PreflightCheck cache =
      Named(CheckNvme(dir.path(), ShippedProfiles(), std::nullopt, probes), "nvme.page_cache");
  CHECK(cache.status() == v1::PREFLIGHT_WARN);
  CHECK_THAT(cache.detail(), Contains("MemAvailable 1800.0 GiB") && Contains("64.0 GiB") &&
                                 Contains("page cache now 12.0 GiB"));
  CHECK_THAT(cache.remedy(), Contains("use_odirect"));
  // Only simulated NVME pools: not judged.
  CHECK(
      Named(CheckNvme(dir.path(), SomeProfiles({"sim-vllm", "sim-lmcache"}), std::nullopt, probes),
            "nvme.page_cache")
          .status() == v1::PREFLIGHT_SKIP);
}

TEST_CASE("nvme: no nvme_cache_dir skips every check") {
  FakePreflightProbes probes;
  for (const v1::PreflightCheck& check : CheckNvme("", ShippedProfiles(), std::nullopt, probes)) {
    CHECK(check.status() == v1::PREFLIGHT_SKIP);
    CHECK_THAT(check.detail(), Contains("no nvme_cache_dir"));
  }
}

TEST_CASE("nvme: a dir that does not exist yet is judged by the folder above it") {
  TempDir dir;
  FakePreflightProbes probes;
  const auto checks = CheckNvme(dir.File("a/b/nvme"), ShippedProfiles(), std::nullopt, probes);
  CHECK(Named(checks, "nvme.dir").status() == v1::PREFLIGHT_OK);
  CHECK_THAT(Named(checks, "nvme.dir").detail(), Contains("does not exist yet"));
  CHECK(Named(checks, "nvme.block_device").status() == v1::PREFLIGHT_OK);
}

TEST_CASE("nvme: a file where the folder should be fails nvme.dir and skips the rest") {
  TempDir dir;
  dir.WriteFile("nvme", "not a folder");
  FakePreflightProbes probes;
  const auto checks = CheckNvme(dir.File("nvme"), ShippedProfiles(), std::nullopt, probes);
  CHECK(Named(checks, "nvme.dir").status() == v1::PREFLIGHT_FAIL);
  CHECK(Tiers(Named(checks, "nvme.dir")) == std::vector<v1::Tier>{v1::NVME});
  CHECK(Named(checks, "nvme.o_direct").status() == v1::PREFLIGHT_SKIP);
  CHECK_THAT(Named(checks, "nvme.o_direct").detail(), Contains("nvme.dir fails"));
}

TEST_CASE("nvme: a folder the agent cannot write fails nvme.dir") {
  if (::geteuid() == 0) SUCCEED("root writes anywhere: not checkable as root");
  if (::geteuid() == 0) return;
  TempDir dir;
  std::filesystem::create_directory(dir.File("locked"));
  ::chmod(dir.File("locked").c_str(), 0500);
  FakePreflightProbes probes;
  const auto checks = CheckNvme(dir.File("locked"), ShippedProfiles(), std::nullopt, probes);
  CHECK(Named(checks, "nvme.dir").status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(Named(checks, "nvme.dir").detail(), Contains("not writable"));
  ::chmod(dir.File("locked").c_str(), 0700);
}

}  // namespace
}  // namespace kvbench::testing
