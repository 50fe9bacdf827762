// `kvctl dataset list|pull` through the command tree, as a user runs it: an HTTP mirror on
// loopback serving the real tau2 file, the shared folder as an offline mirror, exit codes.

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "agent/datasets/registry/file_digest.h"
#include "tests/component/agent/datasets/registry/dataset_file_server.h"
#include "tests/component/controller/kvctl/kvctl_test_helpers.h"
#include "tests/support/demo_dataset_file.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {
namespace {

using ::kvbench::testing::kTau2File;
using ::kvbench::testing::kTau2Sha256;

std::string SharedFile(const std::string& name) {
  return std::string(KV_DEMO_DATASETS) + "/" + name;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::unique_ptr<DatasetFileServer> Tau2Server() {
  auto server = DatasetFileServer::Create(kTau2File, ReadAll(SharedFile(kTau2File)));
  REQUIRE(server.ok());
  return *std::move(server);
}

TEST_CASE("kvctl dataset pull through an HTTP mirror verifies once, then makes no request") {
  auto server = Tau2Server();
  TempDir cache;
  KvctlRun first = RunKvctl({"dataset", "pull", "tau2-bench-v1", "--mirror", server->base_url(),
                             "--cache", cache.path()});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out.find(kTau2Sha256) != std::string::npos);
  CHECK(first.out.find("downloaded") != std::string::npos);
  CHECK(*datasets::Sha256OfFile(cache.File(kTau2File)) == kTau2Sha256);
  CHECK(server->requests() == 1);

  KvctlRun second = RunKvctl({"dataset", "pull", "tau2-bench-v1", "-o", "json"},
                             {{"KV_DATASET_CACHE", cache.path()},
                              {"KV_DATASET_MIRROR", server->base_url()}});
  REQUIRE(second.exit_code == 0);
  CHECK(server->requests() == 1);
  auto json = nlohmann::json::parse(second.out);
  CHECK(json["files"][0]["outcome"] == "cached");
  CHECK(json["files"][0]["downloads"] == 0);

  KvctlRun list = RunKvctl({"dataset", "list", "--output", "json"},
                           {{"KV_DATASET_CACHE", cache.path()}});
  REQUIRE(list.exit_code == 0);
  auto listed = nlohmann::json::parse(list.out);
  REQUIRE(listed.size() == 2);
  CHECK(listed[1]["code"] == "tau2-bench-v1");
  CHECK(listed[1]["files"][0]["cached"] == true);
  CHECK(listed[1]["files"][0]["verified"] == true);
  CHECK(listed[1]["files"][0]["size"] == 796333);
  CHECK(listed[0]["code"] == "sammshen");
  CHECK(listed[0]["files"].size() == 5);
  CHECK(listed[0]["files"][0]["cached"] == false);
  CHECK(listed[0]["files"][0]["size"].is_null());
}

TEST_CASE("kvctl dataset pull resumes a cut transfer with a Range request") {
  auto server = Tau2Server();
  server->CutFirstResponseAfter(300'000);
  TempDir cache;
  KvctlRun run = RunKvctl({"dataset", "pull", "tau2-bench-v1", "--mirror", server->base_url(),
                           "--cache", cache.path()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("resumed") != std::string::npos);
  CHECK(server->ranges() == std::vector<std::string>{"", "bytes=300000-"});
  CHECK(*datasets::Sha256OfFile(cache.File(kTau2File)) == kTau2Sha256);
}

TEST_CASE("kvctl dataset pull rejects a corrupted file and caches nothing") {
  auto server = Tau2Server();
  server->FlipByteAt(500'000);
  TempDir cache;
  KvctlRun run = RunKvctl({"dataset", "pull", "tau2-bench-v1", "--mirror", server->base_url(),
                           "--cache", cache.path()});
  CHECK(run.exit_code == 1);  // DATA_LOSS
  CHECK(run.err.find(std::string("checksum mismatch for ") + kTau2File) != std::string::npos);
  CHECK(run.err.find(kTau2Sha256) != std::string::npos);
  CHECK(cache.ReadFile(kTau2File).empty());
  CHECK(cache.ReadFile(std::string(kTau2File) + ".part").empty());

  KvctlRun list = RunKvctl({"dataset", "list"}, {{"KV_DATASET_CACHE", cache.path()}});
  REQUIRE(list.exit_code == 0);
  CHECK(list.out.find("tau2-bench-v1  tau2_airline_gpt-4.1_results.json") != std::string::npos);
  CHECK(Count(list.out, "  no  ") >= 1);
}

TEST_CASE("kvctl dataset pull from a mirror folder works offline") {
  TempDir cache;
  KvctlRun run = RunKvctl({"dataset", "pull", "tau2-bench-v1", "--mirror", KV_DEMO_DATASETS},
                          {{"XDG_CACHE_HOME", cache.path()}});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("copied") != std::string::npos);
  const std::string cached = cache.path() + "/kvbench/datasets/" + kTau2File;
  CHECK(*datasets::Sha256OfFile(cached) == kTau2Sha256);

  KvctlRun missing = RunKvctl({"dataset", "pull", "sammshen", "--mirror", KV_DEMO_DATASETS},
                              {{"XDG_CACHE_HOME", cache.path()}});
  CHECK(missing.exit_code == 3);
  CHECK(missing.err.find("train-00000-of-00005.parquet") != std::string::npos);
}

TEST_CASE("kvctl dataset pull of an unknown code exits 3 naming the known codes") {
  TempDir cache;
  KvctlRun run = RunKvctl({"dataset", "pull", "sharegpt", "--cache", cache.path()});
  CHECK(run.exit_code == 3);
  CHECK(run.err.find("unknown dataset code 'sharegpt'") != std::string::npos);
  CHECK(run.err.find("sammshen, tau2-bench-v1") != std::string::npos);

  KvctlRun no_cache = RunKvctl({"dataset", "pull", "tau2-bench-v1"});
  CHECK(no_cache.exit_code == 5);
  CHECK(no_cache.err.find("KV_DATASET_CACHE") != std::string::npos);
}

}  // namespace
}  // namespace kvbench::testing
