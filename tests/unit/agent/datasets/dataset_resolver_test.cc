#include "agent/datasets/dataset_resolver.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "tests/support/temp_dir.h"

namespace kvbench::datasets {
namespace {

v1::DatasetRef Ref(const std::string& code, const std::string& path = "") {
  v1::DatasetRef ref;
  ref.set_code(code);
  ref.set_path(path);
  return ref;
}

TEST_CASE("DatasetResolver finds known files of a code in the mirror", "[Datasets]") {
  DatasetResolver resolver({"/nonexistent-cache", KV_DEMO_DATASETS, KV_TEST_DATASETS}, false);
  auto tau2 = resolver.Resolve(Ref("tau2-bench-v1"));
  REQUIRE(tau2.ok());
  CHECK(tau2->find("tau2_airline_gpt-4.1_results.json") != std::string::npos);
  auto rows = resolver.Resolve(Ref("sammshen"));
  REQUIRE(rows.ok());
  CHECK(rows->find("lmcache_format.jsonl") != std::string::npos);
  auto named = resolver.Resolve(Ref("lmcache-agent-trace", "lmcache-agent-trace/magagent"));
  REQUIRE(named.ok());
  CHECK(named->find("magagent") != std::string::npos);
}

TEST_CASE("DatasetResolver refuses paths that escape its roots", "[Datasets]") {
  testing::TempDir root;
  root.WriteFile("inside.jsonl", "{}\n");
  REQUIRE(::symlink("/etc", root.File("escape").c_str()) == 0);
  DatasetResolver resolver({root.path()}, false);
  for (const char* bad : {"/etc/passwd", "../etc/passwd", "a/../../x", "escape/passwd"}) {
    INFO(bad);
    auto resolved = resolver.Resolve(Ref("openai-messages", bad));
    REQUIRE(resolved.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(resolved.status().message()), Catch::Contains("dataset"));
  }
  CHECK(resolver.Resolve(Ref("openai-messages", "inside.jsonl")).ok());
}

TEST_CASE("DatasetResolver says what it looked for when nothing is found", "[Datasets]") {
  testing::TempDir root;
  DatasetResolver resolver({root.path()}, false);
  auto missing = resolver.Resolve(Ref("tau2-bench-v1"));
  REQUIRE(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK_THAT(std::string(missing.status().message()),
             Catch::Contains("tau2_airline_gpt-4.1_results.json") && Catch::Contains(root.path()) &&
                 Catch::Contains(kDatasetMirrorEnv));
  auto no_known = resolver.Resolve(Ref("sharegpt"));
  CHECK(no_known.status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("DatasetResolver accepts a user's own path only for local runs", "[Datasets]") {
  const std::string own = std::string(KV_DEMO_DATASETS) + "/tau2_airline_gpt-4.1_results.json";
  DatasetResolver agent({"/nonexistent"}, false);
  CHECK(agent.Resolve(Ref("tau2-bench-v1", own)).status().code() ==
        absl::StatusCode::kInvalidArgument);
  DatasetResolver local({"/nonexistent"}, true);
  CHECK(local.Resolve(Ref("tau2-bench-v1", own)).ok());
}

}  // namespace
}  // namespace kvbench::datasets
