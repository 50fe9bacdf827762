// kvctl dataset cat on Apache's own Parquet test files and on a JSONL dataset.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "absl/strings/str_split.h"
#include "tests/component/controller/kvctl/kvctl_test_helpers.h"

namespace kvbench::testing {
namespace {

std::vector<nlohmann::json> Lines(const std::string& out) {
  std::vector<nlohmann::json> rows;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    rows.push_back(nlohmann::json::parse(line));
  }
  return rows;
}

TEST_CASE("kvctl dataset cat prints a Parquet file's rows as JSON lines") {
  const std::string file = std::string(KV_PARQUET_DATA) + "/alltypes_plain.parquet";
  KvctlRun all = RunKvctl({"dataset", "cat", file});
  INFO(all.err);
  REQUIRE(all.exit_code == 0);
  std::vector<nlohmann::json> rows = Lines(all.out);
  REQUIRE(rows.size() == 8);
  CHECK(rows[0]["id"] == 4);  // the file's documented order: 4, 5, 6, 7, 2, 3, 0, 1
  CHECK(rows[7]["id"] == 1);
  CHECK(rows[0]["string_col"] == "0");
  CHECK(Lines(RunKvctl({"dataset", "cat", file, "--limit", "2"}).out).size() == 2);

  // Nested lists and maps come out as JSON arrays and objects.
  KvctlRun nested =
      RunKvctl({"dataset", "cat", std::string(KV_PARQUET_DATA) + "/nested_lists.snappy.parquet"});
  REQUIRE(nested.exit_code == 0);
  CHECK(Lines(nested.out).at(0)["a"].is_array());
}

TEST_CASE("kvctl dataset cat prints JSONL rows, and refuses what it cannot read") {
  KvctlRun jsonl =
      RunKvctl({"dataset", "cat",
                std::string(KV_TEST_DATASETS) + "/tau2_airline_gpt-4.1_lmcache_format.jsonl",
                "--limit", "3"});
  REQUIRE(jsonl.exit_code == 0);
  std::vector<nlohmann::json> rows = Lines(jsonl.out);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]["input"].is_array());

  KvctlRun lz4 =
      RunKvctl({"dataset", "cat", std::string(KV_PARQUET_DATA) + "/hadoop_lz4_compressed.parquet"});
  CHECK(lz4.exit_code != 0);
  CHECK(lz4.err.find("LZ4") != std::string::npos);
}

}  // namespace
}  // namespace kvbench::testing
