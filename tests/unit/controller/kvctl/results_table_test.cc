// kvctl's results table: a result's warnings are visible in it, never silent; KV usage, what
// offload served and LMCache's lookup-based hit rate have their own, labelled columns.

#include "controller/kvctl/print/results_table.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "controller/kvctl/print/result_columns.h"

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

// The cell of `header` in `row`.
std::string CellOf(const std::vector<std::string>& headers, const std::vector<std::string>& row,
                   const std::string& header) {
  const auto it = std::find(headers.begin(), headers.end(), header);
  REQUIRE(it != headers.end());
  return row[static_cast<size_t>(it - headers.begin())];
}

TEST_CASE("Results table: KV usage mean/max, offload served, LMCache lookup hit rate") {
  v1::Scenario gpu;
  gpu.set_tier(v1::GPU);
  gpu.set_concurrency(8);
  v1::Scenario cpu = gpu;
  cpu.set_tier(v1::CPU_RAM);
  v1::ScenarioResult gpu_result;
  gpu_result.mutable_engine()->set_kv_cache_usage_mean(0.407);
  gpu_result.mutable_engine()->set_kv_cache_usage_max(0.92);
  v1::ScenarioResult cpu_result = gpu_result;
  cpu_result.mutable_engine()->set_external_hit_tokens(5120);
  cpu_result.mutable_latency()->set_prompt_tokens_total(20480);
  cpu_result.mutable_lmcache()->set_hit_rate(0.874);
  v1::ScenarioResult bare;  // no in-replay scrape, no counters: dashes, never 0
  const std::vector<ResultsRow> rows = {ResultsRowFromOutcome(gpu, absl::OkStatus(), gpu_result),
                                        ResultsRowFromOutcome(cpu, absl::OkStatus(), cpu_result),
                                        ResultsRowFromOutcome(cpu, absl::OkStatus(), bare)};
  const std::vector<std::string> headers = ResultsTableHeaders(rows);
  const std::vector<std::vector<std::string>> cells = ResultsTableCells(rows);
  CHECK(CellOf(headers, cells[0], "KV_MEAN/MAX%") == "40.7/92.0");
  CHECK(CellOf(headers, cells[0], "OFFLOAD_SERVED_TOK") == "-");  // GPU: no connector
  CHECK(CellOf(headers, cells[0], "LMC_LOOKUP_HIT%") == "-");
  CHECK(CellOf(headers, cells[1], "OFFLOAD_SERVED_TOK") == "5120 (25.0%)");
  CHECK(CellOf(headers, cells[1], "LMC_LOOKUP_HIT%") == "87.4");
  CHECK(CellOf(headers, cells[2], "KV_MEAN/MAX%") == "-");
  CHECK(CellOf(headers, cells[2], "OFFLOAD_SERVED_TOK") == "-");
}

TEST_CASE("Results CSV: LMCache's hit rate is the lookup_hit_rate column") {
  v1::ScenarioResult result;
  result.mutable_lmcache()->set_hit_rate(0.5);
  result.mutable_engine()->set_external_hit_tokens(256);
  const auto columns = FlattenResult(result);
  auto has = [&](const std::string& name) {
    return std::any_of(columns.begin(), columns.end(),
                       [&](const auto& column) { return column.first == name; });
  };
  CHECK(has("lmcache.lookup_hit_rate"));
  CHECK_FALSE(has("lmcache.hit_rate"));
  CHECK(has("engine.external_hit_tokens"));
}

}  // namespace
}  // namespace kvbench::kvctl

namespace kvbench::kvctl {
namespace {

TEST_CASE("Results table: SESSIONS is complete/requested and STATUS counts the lost ones") {
  v1::Scenario scenario;
  scenario.set_tier(v1::GPU);
  scenario.set_concurrency(2);
  auto with_sessions = [](int complete, int incomplete, int not_started, int truncated) {
    v1::ScenarioResult result;
    v1::SessionCounts* s = result.mutable_sessions();
    s->set_requested(16);
    s->set_achieved(16);
    s->set_total(16);
    s->set_complete(complete);
    s->set_incomplete(incomplete);
    s->set_not_started(not_started);
    s->set_truncated_by_isl(truncated);
    return result;
  };
  const std::vector<ResultsRow> rows = {
      ResultsRowFromOutcome(scenario, absl::OkStatus(), with_sessions(16, 0, 0, 0)),
      ResultsRowFromOutcome(scenario, absl::OkStatus(), with_sessions(4, 0, 0, 12)),
      ResultsRowFromOutcome(scenario, absl::OkStatus(), with_sessions(15, 1, 0, 0)),
      ResultsRowFromOutcome(scenario, absl::OkStatus(),
                            [&] {
                              v1::ScenarioResult died = with_sessions(11, 5, 0, 0);
                              died.add_process_failures(
                                  "replica-1 killed by signal 9 (SIGKILL) during the replay");
                              return died;
                            }()),
      ResultsRowFromOutcome(scenario, absl::OkStatus(), [&] {
        v1::ScenarioResult full = with_sessions(16, 0, 0, 0);
        full.mutable_lmcache()->set_l2_store_submitted_chunks(88);
        full.mutable_lmcache()->set_l2_store_failed_chunks(80);
        return full;
      }())};
  const std::vector<std::string> headers = ResultsTableHeaders(rows);
  const std::vector<std::vector<std::string>> cells = ResultsTableCells(rows);
  CHECK(CellOf(headers, cells[0], "SESSIONS") == "16/16");
  CHECK(CellOf(headers, cells[0], "STATUS") == "ok");
  CHECK(CellOf(headers, cells[1], "SESSIONS") == "4/16");
  CHECK(CellOf(headers, cells[1], "STATUS") == "ok (12 sessions lost)");
  CHECK(CellOf(headers, cells[2], "STATUS") == "ok (1 session lost)");
  // A replica died mid-run: the sessions it cost are said too, and SESSIONS shows what completed.
  CHECK(CellOf(headers, cells[3], "SESSIONS") == "11/16");
  CHECK(CellOf(headers, cells[3], "STATUS") == "ok (process died, 5 sessions lost)");
  // The NVMe pool's disk filled: the run completed, its L2 did not hold it.
  CHECK(CellOf(headers, cells[4], "STATUS") == "ok (80 L2 stores failed)");
}

// The share of failed requests and the first error, and why a scenario failed.
TEST_CASE("Results table: STATUS shows failed requests' first error and a failure's reason") {
  v1::Scenario scenario;
  scenario.set_tier(v1::GPU);
  scenario.set_concurrency(2);
  v1::ScenarioResult some_failed;
  some_failed.mutable_sessions()->set_requested(4);
  some_failed.mutable_sessions()->set_complete(3);
  some_failed.mutable_sessions()->set_error(1);
  some_failed.mutable_sessions()->set_failed_requests(1);
  some_failed.mutable_sessions()->set_first_error("timeout");
  some_failed.mutable_latency()->set_requests_completed(19);
  const std::vector<ResultsRow> rows = {
      ResultsRowFromOutcome(scenario, absl::OkStatus(), some_failed),
      ResultsRowFromOutcome(
          scenario,
          absl::AbortedError("no request succeeded: all 160 requests failed; the first: "
                             "stream_error: the request needs 133 KV blocks, the engine has 64 "
                             "in all\nlog tail"),
          {}),
      ResultsRowFromOutcome(scenario, absl::AbortedError(""), {})};
  const std::vector<std::string> headers = ResultsTableHeaders(rows);
  const std::vector<std::vector<std::string>> cells = ResultsTableCells(rows);
  CHECK(CellOf(headers, cells[0], "STATUS") ==
        "ok (1 session lost, 1 of 20 requests failed, first: timeout)");
  CHECK(CellOf(headers, cells[1], "STATUS") ==
        "failed: no request succeeded: all 160 requests failed; the first: stream_error: the "
        "request needs 133 KV ...");
  CHECK(CellOf(headers, cells[2], "STATUS") == "failed");
}

TEST_CASE("Results table: a FAN_OUT_EACH job's rows are grouped and led by their AGENT") {
  auto row = [](const std::string& agent, v1::Tier tier, int concurrency) {
    v1::Scenario scenario;
    scenario.set_agent_id(agent);
    scenario.set_tier(tier);
    scenario.set_concurrency(concurrency);
    return ResultsRowFromOutcome(scenario, absl::OkStatus(), {});
  };
  const std::vector<ResultsRow> fleet = {row("sim-a", v1::GPU, 8), row("sim-b", v1::GPU, 2),
                                         row("sim-a", v1::GPU, 2), row("sim-b", v1::GPU, 8)};
  const std::vector<std::string> headers = ResultsTableHeaders(fleet);
  REQUIRE(headers.front() == "AGENT");
  std::vector<std::string> order;
  for (const std::vector<std::string>& cells : ResultsTableCells(fleet)) {
    REQUIRE(cells.size() == headers.size());
    order.push_back(cells[0] + " c" + CellOf(headers, cells, "CONCURRENCY"));
  }
  CHECK(order == std::vector<std::string>{"sim-a c2", "sim-a c8", "sim-b c2", "sim-b c8"});
  // One agent (or none pinned): no AGENT column.
  CHECK(ResultsTableHeaders({row("", v1::GPU, 2), row("", v1::CPU_RAM, 2)}).front() ==
        "CONCURRENCY");
}

}  // namespace
}  // namespace kvbench::kvctl
