#include "controller/kvctl/print/comparison_printer.h"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>

namespace kvbench::kvctl {
namespace {

// GPU vs CPU_RAM and NVME at concurrency 16: TTFT p95 with CPU_RAM clearly faster and NVME's
// interval holding 0; a row without intervals.
std::vector<results::ComparisonGroup> Groups() {
  results::ComparisonGroup group;
  group.comparison_group = "c16";
  group.concurrency = 16;
  group.repeats = 3;
  group.interval_note = "3 repeats per tier: ...";
  for (v1::Tier tier : {v1::GPU, v1::CPU_RAM, v1::NVME}) {
    results::ComparisonColumn& column = group.columns.emplace_back();
    column.tier = tier;
    column.scenario_ids = {"a", "b", "c"};
    column.succeeded = 3;
  }
  group.baseline = 0;
  results::ComparisonRow p95;
  p95.metric = "TTFT p95";
  p95.unit = "ms";
  p95.values = {1000.0, 780.0, 950.0};
  p95.deltas = {std::nullopt, -22.0, -5.0};
  p95.intervals = {std::nullopt, results::DeltaInterval{-35.1, -8.2},
                   results::DeltaInterval{-20.0, 9.0}};
  results::ComparisonRow usage;
  usage.metric = "KV cache usage mean";
  usage.unit = "%";
  usage.delta_kind = results::DeltaKind::kPercentagePoints;
  usage.values = {90.0, 60.0, 61.0};
  usage.deltas = {std::nullopt, -30.0, -29.0};
  usage.intervals = {std::nullopt, std::nullopt, std::nullopt};
  group.rows = {p95, usage};
  return {group};
}

TEST_CASE("A delta is printed with its interval, and as no clear difference when it holds 0",
          "[kvctl]") {
  std::ostringstream out;
  PrintComparison(Groups(), out);
  const std::string text = out.str();
  CHECK_THAT(text, Catch::Contains("3 repeats per tier"));
  CHECK_THAT(text, Catch::Contains("-22.0% [-35.1%, -8.2%]"));
  CHECK_THAT(text, Catch::Contains("no clear difference [-20.0%, +9.0%]"));
  CHECK_THAT(text, !Catch::Contains("-5.0%"));    // never the bold signed number
  CHECK_THAT(text, Catch::Contains("-30.0 pp"));  // no interval: the delta alone
}

TEST_CASE("The comparison JSON carries each interval and whether it is clear", "[kvctl]") {
  const nlohmann::ordered_json json = ComparisonJson(Groups());
  REQUIRE(json.size() == 1);
  CHECK(json[0]["repeats"] == 3);
  CHECK(json[0]["tiers"][1]["scenario_ids"].size() == 3);
  CHECK(json[0]["tiers"][1]["succeeded"] == true);
  const nlohmann::ordered_json& p95 = json[0]["metrics"][0];
  CHECK(p95["deltas"]["CPU_RAM"] == -22.0);
  CHECK(p95["intervals"]["CPU_RAM"]["low"] == -35.1);
  CHECK(p95["intervals"]["CPU_RAM"]["high"] == -8.2);
  CHECK(p95["clear"]["CPU_RAM"] == true);
  CHECK(p95["clear"]["NVME"] == false);
  CHECK(json[0]["metrics"][1]["intervals"]["NVME"].is_null());
  CHECK(json[0]["metrics"][1]["clear"]["NVME"].is_null());
}

}  // namespace
}  // namespace kvbench::kvctl
