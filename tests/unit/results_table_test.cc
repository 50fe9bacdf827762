// kvctl's results table: a result's warnings are visible in it, never silent.

#include "controller/kvctl/results_table.h"

#include <catch2/catch.hpp>

namespace kvbench::kvctl {
namespace {

TEST_CASE("Results table: the WARNINGS column lists each result's warning codes") {
  v1::Scenario scenario;
  scenario.set_tier(v1::NVME);
  scenario.set_concurrency(8);
  v1::ScenarioResult result;
  result.add_warnings()->set_code("cache_server_metrics_unavailable");
  result.add_warnings()->set_code("nvme_reads_not_from_disk");
  v1::ScenarioResult clean;
  const std::vector<ResultsRow> rows = {
      ResultsRowFromOutcome(scenario, absl::OkStatus(), result),
      ResultsRowFromOutcome(scenario, absl::OkStatus(), clean),
      ResultsRowFromOutcome(scenario, absl::UnavailableError("lost"), {})};
  REQUIRE(ResultsTableHeaders(rows).back() == "WARNINGS");
  const std::vector<std::vector<std::string>> cells = ResultsTableCells(rows);
  REQUIRE(cells.size() == 3);
  CHECK(cells[0].back() == "cache_server_metrics_unavailable,nvme_reads_not_from_disk");
  CHECK(cells[1].back() == "-");
  CHECK(cells[2].back() == "-");
  for (const auto& row : cells) CHECK(row.size() == ResultsTableHeaders(rows).size());
}

}  // namespace
}  // namespace kvbench::kvctl
