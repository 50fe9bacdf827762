// kvctl results and compare on a local run's folder (kvctl run's --out): the table, every field
// as CSV and JSON (round trips), the comparison with the GPU baseline and the verdict.

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/json/proto_json.h"
#include "controller/client/local_job_files.h"
#include "google/protobuf/util/message_differencer.h"
#include "tests/component/controller/kvctl/kvctl_test_helpers.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {
namespace {

v1::ScenarioResult Result(v1::Tier tier, int users, double ttft_p50_s, bool external) {
  v1::ScenarioResult result;
  result.set_tier(tier);
  result.set_concurrency(users);
  v1::LatencyMetrics* latency = result.mutable_latency();
  latency->set_ttft_mean_s(ttft_p50_s * 1.3);
  latency->set_ttft_p50_s(ttft_p50_s);
  latency->set_ttft_p95_s(ttft_p50_s * 4.0123456789);
  latency->set_ttft_p99_s(ttft_p50_s * 6);
  latency->set_requests_per_s(83.123456);
  latency->set_output_tokens_per_s(5311.5);
  latency->set_ttft_degradation_median_pct(-44.44);
  v1::RoundLatency* round = latency->add_ttft_by_round();
  round->set_round(1);
  round->set_count(16);
  round->set_ttft_p50_s(ttft_p50_s);
  result.mutable_sessions()->set_requested(16);
  result.mutable_sessions()->set_achieved(16);
  result.mutable_sessions()->set_total(16);
  result.mutable_sessions()->set_complete(16);
  result.mutable_sessions()->set_dataset_ceiling(40);
  result.mutable_engine()->set_local_hit_rate(0.861);
  result.mutable_engine()->set_num_gpu_blocks(2048);
  result.mutable_engine()->set_block_size(16);
  if (external) result.mutable_engine()->set_external_hit_rate(0.196);
  result.set_peak_concurrent_tokens(200000);
  (*result.mutable_telemetry()->mutable_process_cpu_pct_mean())["replica-0"] = 41.5;
  v1::TimeSeries* series = result.add_series();
  series->set_name("local_hit_rate");
  series->add_t_s(0.75);
  series->add_value(0.5);
  return result;
}

// A finished two-tier job at concurrency 2 and 8, written as kvctl run writes it; `sim_scale` > 0
// makes it a simulated engine's, with simulated_latency as the agent fills it.
std::string WriteJob(const TempDir& dir, double sim_scale = 0) {
  v1::Job job;
  job.set_job_id("demo-20261129T000000");
  job.mutable_spec()->set_name("demo");
  job.mutable_spec()->set_model("meta-llama/Llama-3.1-8B-Instruct");
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  job.set_submit_unix_ms(1'800'000'000'000);
  const std::string job_dir = dir.path() + "/out/" + job.job_id();
  std::filesystem::create_directories(job_dir);
  int index = 0;
  for (int users : {2, 8}) {
    for (v1::Tier tier : {v1::GPU, v1::CPU_RAM}) {
      v1::ScenarioStatus* status = job.add_scenarios();
      v1::Scenario* scenario = status->mutable_scenario();
      scenario->set_index(index);
      scenario->set_scenario_id(
          absl::StrFormat("%02d-%s-c%d", index++, tier == v1::GPU ? "gpu" : "cpu-ram", users));
      scenario->set_tier(tier);
      scenario->set_concurrency(users);
      scenario->set_comparison_group("c" + std::to_string(users));
      status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
      v1::ScenarioResult result =
          Result(tier, users, tier == v1::GPU ? 0.0022 : 0.0018, tier != v1::GPU);
      if (sim_scale > 0) {
        result.set_sim_time_scale(sim_scale);
        v1::LatencyMetrics* simulated = result.mutable_simulated_latency();
        *simulated = result.latency();
        simulated->set_ttft_p50_s(result.latency().ttft_p50_s() / sim_scale);
        simulated->set_ttft_p95_s(result.latency().ttft_p95_s() / sim_scale);
        simulated->set_requests_per_s(result.latency().requests_per_s() * sim_scale);
      }
      std::filesystem::create_directories(job_dir + "/" + scenario->scenario_id());
      std::ofstream(job_dir + "/" + scenario->scenario_id() + "/result.json")
          << ProtoToJson(result, /*pretty=*/true);
    }
  }
  REQUIRE(client::WriteLocalJob(job_dir, job).ok());
  return dir.path() + "/out";
}

std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    rows.push_back(absl::StrSplit(line, ','));
  }
  return rows;
}

TEST_CASE("kvctl results on a local run's folder: every table number is in the CSV") {
  TempDir dir;
  const std::string out = WriteJob(dir);
  KvctlRun table = RunKvctl({"results", out});
  INFO(table.err);
  REQUIRE(table.exit_code == 0);
  KvctlRun csv = RunKvctl({"results", out, "--output", "csv"});
  REQUIRE(csv.exit_code == 0);
  std::vector<std::vector<std::string>> rows = ParseCsv(csv.out);
  REQUIRE(rows.size() == 5);  // header + 4 scenarios
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < rows[0].size(); ++i) column[rows[0][i]] = i;
  for (const char* name :
       {"latency.ttft_p50_s", "latency.ttft_p95_s", "latency.requests_per_s", "sessions.achieved",
        "sessions.complete", "sessions.requested", "engine.local_hit_rate",
        "latency.ttft_by_round.0.ttft_p50_s", "telemetry.process_cpu_pct_mean.replica-0"}) {
    INFO(name);
    CHECK(column.count(name) == 1);
  }
  CHECK(column.count("series.0.t_s") == 0);  // time series are JSON-only
  // Each table row's numbers, recomputed from the CSV's raw values the way the table prints.
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    const double p50 = std::stod(row[column["latency.ttft_p50_s"]]);
    const double p95 = std::stod(row[column["latency.ttft_p95_s"]]);
    const double rps = std::stod(row[column["latency.requests_per_s"]]);
    const std::string expected =
        // KV_MEAN/MAX%, OFFLOAD_SERVED_TOK, LMC_LOOKUP_HIT%: "-", the fixture has no scrapes.
        // SESSIONS: complete/requested.
        absl::StrFormat("%s  %s/%s  %.1f  %.1f  -44%%  %.2f  0  -  -  -  ok  -",
                        row[column["tier"]], row[column["sessions.complete"]],
                        row[column["sessions.requested"]], p50 * 1000, p95 * 1000, rps);
    std::string squeezed;  // the table's columns with runs of spaces made two
    for (absl::string_view line : absl::StrSplit(table.out, '\n')) {
      std::vector<absl::string_view> cells = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (cells.size() < 2 || cells[0] != row[column["concurrency"]] ||
          cells[1] != row[column["tier"]]) {
        continue;
      }
      squeezed = absl::StrJoin(cells.begin() + 1, cells.end(), "  ");
    }
    CHECK(squeezed == expected);
  }
  // Full precision in the CSV: the shortest text that reads back to the same double.
  CHECK(std::stod(rows[1][column["latency.ttft_p95_s"]]) == 0.0022 * 4.0123456789);
}

TEST_CASE("kvctl results and compare show a simulated engine's times in simulated seconds") {
  TempDir dir;
  const std::string out = WriteJob(dir, /*sim_scale=*/0.05);
  KvctlRun table = RunKvctl({"results", out});
  INFO(table.err);
  REQUIRE(table.exit_code == 0);
  INFO(table.out);
  CHECK(table.out.find("\ntimes in simulated seconds (sim_time_scale 0.05: observed × 20)\n") !=
        std::string::npos);
  CHECK(table.out.find("SIM_TTFT_P50_MS") != std::string::npos);
  CHECK(table.out.find("SIM_REQ/S") != std::string::npos);
  // The CSV carries both; the table's numbers are the simulated ones.
  KvctlRun csv = RunKvctl({"results", out, "--output", "csv"});
  REQUIRE(csv.exit_code == 0);
  std::vector<std::vector<std::string>> rows = ParseCsv(csv.out);
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < rows[0].size(); ++i) column[rows[0][i]] = i;
  REQUIRE(column.count("simulated_latency.ttft_p50_s") == 1);
  REQUIRE(column.count("latency.ttft_p50_s") == 1);
  REQUIRE(column.count("sim_time_scale") == 1);
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    const double observed = std::stod(row[column["latency.ttft_p50_s"]]);
    const double scale = std::stod(row[column["sim_time_scale"]]);
    const std::string p50 = absl::StrFormat("%.1f", observed / scale * 1000);
    CHECK(std::stod(row[column["simulated_latency.ttft_p50_s"]]) ==
          Approx(observed / scale).epsilon(1e-12));
    std::string shown;  // the row's SIM_TTFT_P50_MS cell: 44.0 (GPU), 36.0 (CPU_RAM)
    for (absl::string_view line : absl::StrSplit(table.out, '\n')) {
      std::vector<absl::string_view> cells = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (cells.size() > 3 && cells[0] == row[column["concurrency"]] &&
          cells[1] == row[column["tier"]]) {
        shown = std::string(cells[3]);
      }
    }
    CHECK(shown == p50);
  }
  KvctlRun compare = RunKvctl({"compare", out});
  REQUIRE(compare.exit_code == 0);
  CHECK(compare.out.find("times in simulated seconds (sim_time_scale 0.05: observed × 20)") !=
        std::string::npos);
  CHECK(compare.out.find("TTFT p50 (sim ms)") != std::string::npos);
  CHECK(compare.out.find("requests/s (sim req/s)") != std::string::npos);
  CHECK(compare.out.find("44.0") != std::string::npos);  // GPU TTFT p50: 2.2 ms x 20
  KvctlRun json = RunKvctl({"compare", out, "--output", "json"});
  REQUIRE(json.exit_code == 0);
  nlohmann::json groups = nlohmann::json::parse(json.out);
  CHECK(groups[0]["time_note"] ==
        "times in simulated seconds (sim_time_scale 0.05: observed × 20)");
  CHECK(groups[0]["metrics"][1]["values"]["GPU"].get<double>() == Approx(44.0));
}

TEST_CASE("kvctl results --output json round-trips every result") {
  TempDir dir;
  const std::string out = WriteJob(dir);
  KvctlRun json = RunKvctl({"results", out, "--output", "json"});
  REQUIRE(json.exit_code == 0);
  nlohmann::json parsed = nlohmann::json::parse(json.out);
  REQUIRE(parsed.size() == 4);
  absl::StatusOr<v1::Job> job = client::LoadLocalJob(out);
  REQUIRE(job.ok());
  for (size_t i = 0; i < parsed.size(); ++i) {
    v1::ScenarioResult back;
    REQUIRE(ParseJsonToProto(parsed[i]["result"].dump(), &back).ToStatus("result").ok());
    CHECK(google::protobuf::util::MessageDifferencer::Equals(back, job->scenarios(i).result()));
  }
}

TEST_CASE("kvctl compare puts the tiers side by side against the GPU baseline") {
  TempDir dir;
  const std::string out = WriteJob(dir);
  KvctlRun compare = RunKvctl({"compare", out});
  INFO(compare.err);
  REQUIRE(compare.exit_code == 0);
  CHECK(Count(compare.out, "concurrency 2") == 1);
  CHECK(Count(compare.out, "concurrency 8") == 1);
  CHECK(compare.out.find("comparison c2: valid") != std::string::npos);
  // 1.8 ms vs 2.2 ms: -18.2 %; hit rates compared in percentage points.
  CHECK(compare.out.find("-18.2%") != std::string::npos);
  CHECK(compare.out.find("external hit rate (%)") != std::string::npos);
  KvctlRun json = RunKvctl({"compare", out, "--output", "json"});
  REQUIRE(json.exit_code == 0);
  nlohmann::json groups = nlohmann::json::parse(json.out);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0]["concurrency"] == 2);
  CHECK(groups[0]["baseline"] == "GPU");
  CHECK(groups[0]["metrics"][1]["metric"] == "TTFT p50");
  CHECK(groups[0]["metrics"][1]["values"]["GPU"].get<double>() == Approx(2.2));
  CHECK(groups[0]["metrics"][1]["deltas"]["CPU_RAM"].get<double>() ==
        Approx(-18.1818).epsilon(1e-3));
}

TEST_CASE("kvctl results on a folder without a job says so") {
  TempDir dir;
  KvctlRun run = RunKvctl({"results", dir.path()});
  CHECK(run.exit_code == 3);
  CHECK(run.err.find("holds no kvbench job") != std::string::npos);
}

}  // namespace
}  // namespace kvbench::testing
