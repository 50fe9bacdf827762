// DatasetProvisioner, what an agent runs before a scenario: a registry dataset is copied from
// the mirror into the cache and verified; a corrupt copy fails up front naming the file and
// both digests and lands nothing; what the registry does not know is left alone.

#include "agent/datasets/registry/dataset_provisioner.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/demo_dataset_file.h"
#include "tests/support/temp_dir.h"

namespace kvbench::datasets {
namespace {

using ::kvbench::testing::kTau2File;

v1::DatasetRef Tau2Ref() {
  v1::DatasetRef ref;
  ref.set_code("tau2-bench-v1");
  ref.set_path(kTau2File);
  return ref;
}

TEST_CASE("a registry dataset is pulled from the mirror into the cache and verified") {
  testing::TempDir dir;
  const std::string cache = dir.path() + "/cache";
  DatasetProvisioner provisioner(cache, KV_DEMO_DATASETS);
  absl::Status first = provisioner.Provision(Tau2Ref());
  INFO(first.ToString());
  REQUIRE(first.ok());
  CHECK(std::filesystem::file_size(cache + "/" + kTau2File) == 796333);
  CHECK(std::filesystem::exists(cache + "/" + kTau2File + ".meta"));
  // Cached and verified: again is a no-op (and still OK).
  CHECK(provisioner.Provision(Tau2Ref()).ok());
}

TEST_CASE("a pull calls its working hook as it moves (its scenario's keepalive)") {
  testing::TempDir dir;
  int calls = 0;
  DatasetProvisioner provisioner(dir.path() + "/cache", KV_DEMO_DATASETS);
  REQUIRE(provisioner.Provision(Tau2Ref(), [&calls] { ++calls; }).ok());
  CHECK(calls > 0);
  // Cached: nothing moves.
  calls = 0;
  REQUIRE(provisioner.Provision(Tau2Ref(), [&calls] { ++calls; }).ok());
  CHECK(calls == 0);
}

TEST_CASE("a corrupt dataset fails up front with the file and the checksum mismatch") {
  testing::TempDir dir;
  const std::string mirror = dir.path() + "/mirror";
  std::filesystem::create_directories(mirror);
  std::ifstream in(std::string(KV_DEMO_DATASETS) + "/" + kTau2File, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string corrupt = bytes.str();
  corrupt[1000] ^= 0x20;
  std::ofstream(mirror + "/" + kTau2File, std::ios::binary) << corrupt;
  const std::string cache = dir.path() + "/cache";
  absl::Status status = DatasetProvisioner(cache, mirror).Provision(Tau2Ref());
  CHECK(absl::IsDataLoss(status));
  CHECK_THAT(
      std::string(status.message()),
      Catch::Contains(kTau2File) && Catch::Contains("checksum mismatch") &&
          Catch::Contains("57f7bba1fd0366019867f5c0af877e73b98e68040e36d0e7b064df7f7bb1c289"));
  CHECK_FALSE(std::filesystem::exists(cache + "/" + kTau2File));
}

TEST_CASE("what the registry does not know is left to the resolver") {
  testing::TempDir dir;
  v1::DatasetRef own;
  own.set_code("openai-messages");
  own.set_path("my-conversations.jsonl");
  CHECK(DatasetProvisioner(dir.path() + "/cache", "/nonexistent").Provision(own).ok());
  v1::DatasetRef other_file = Tau2Ref();
  other_file.set_path("my-own-tau2-run.json");
  CHECK(DatasetProvisioner(dir.path() + "/cache", "/nonexistent").Provision(other_file).ok());
  // No cache dir: provisioning is off.
  CHECK(DatasetProvisioner("", "/nonexistent").Provision(Tau2Ref()).ok());
}

}  // namespace
}  // namespace kvbench::datasets
