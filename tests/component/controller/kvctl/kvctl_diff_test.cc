// kvctl diff on local run folders: the family-wise control of its verdicts. An A/A
// diff of the demo's matrix (3 tiers x concurrency 2 and 16: 48 metric x scenario tests) with
// three pooled baselines, where one test alone says regression, exits 0 and says what Holm
// withheld; a large regression still exits 9. Rows from the regression unit tests' synthetic
// runs, written as kvctl run writes a run (job.json, result.json, requests.jsonl).

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/runner/request_record.h"
#include "common/json/proto_json.h"
#include "controller/client/local_job_files.h"
#include "tests/component/controller/kvctl/kvctl_test_helpers.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/controller/regression/synthetic_runs.h"

namespace kvbench::testing {
namespace {

runner::RequestRecord RecordOf(const v1::RequestRow& row) {
  runner::RequestRecord record;
  record.user_id = row.user_id();
  record.session_id = row.user_id();
  record.round = row.round();
  record.scheduled_s = row.scheduled_s();
  record.sent_s = row.sent_s();
  record.first_token_s = row.first_token_s();
  record.end_s = row.end_s();
  record.ttft_s = row.ttft_s();
  record.prompt_tokens = static_cast<int>(row.prompt_tokens());
  record.output_tokens = static_cast<int>(row.output_tokens());
  record.cached_tokens = static_cast<int>(row.cached_tokens());
  record.http_status = row.http_status();
  return record;
}

// A finished run of the demo's matrix in <dir>/<job_id>: scenario i's rows are SyntheticRows of
// seed `seed` + i, GPU c16's with a median TTFT of `gpu_c16_ttft_s` (the others 0.2 s). Returns
// the job folder.
std::string WriteRun(const TempDir& dir, const std::string& job_id, uint64_t seed,
                     double gpu_c16_ttft_s = 0.2) {
  v1::Job job;
  job.set_job_id(job_id);
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  const std::string job_dir = dir.File(job_id);
  for (int concurrency : {2, 16}) {
    for (v1::Tier tier : {v1::GPU, v1::CPU_RAM, v1::NVME}) {
      const int index = job.scenarios_size();
      v1::ScenarioStatus* status = job.add_scenarios();
      status->mutable_scenario()->set_scenario_id(absl::StrFormat("%02d-c%d", index, concurrency));
      status->mutable_scenario()->set_tier(tier);
      status->mutable_scenario()->set_concurrency(concurrency);
      status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
      const std::string scenario_dir = job_dir + "/" + status->scenario().scenario_id();
      std::filesystem::create_directories(scenario_dir);
      v1::ScenarioResult result;
      result.set_tier(tier);
      result.set_concurrency(concurrency);
      std::ofstream(scenario_dir + "/" + client::kResultFileName) << ProtoToJson(result);
      regression::testing::RunShape shape;
      if (tier == v1::GPU && concurrency == 16) shape.ttft_s = gpu_c16_ttft_s;
      std::ofstream requests(scenario_dir + "/requests.jsonl");
      for (const v1::RequestRow& row : regression::testing::SyntheticRows(shape, seed + index)) {
        requests << runner::ToJsonLine(RecordOf(row)) << "\n";
      }
    }
  }
  REQUIRE(client::WriteLocalJob(job_dir, job).ok());
  return job_dir;
}

// kvctl diff A B --baseline-also A2 --baseline-also A3 [extra...].
KvctlRun PooledDiff(const std::vector<std::string>& baseline, const std::string& after,
                    const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"diff",      baseline[0],       after,      "--baseline-also",
                                   baseline[1], "--baseline-also", baseline[2]};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunKvctl(args);
}

int CountVerdicts(const nlohmann::json& diff, const std::string& verdict) {
  int count = 0;
  for (const nlohmann::json& scenario : diff["scenarios"]) {
    for (const nlohmann::json& metric : scenario["metrics"]) count += metric["verdict"] == verdict;
  }
  return count;
}

TEST_CASE("kvctl diff: an A/A family's lone per-test regression exits 0, a real one exits 9") {
  TempDir dir;
  // Seeds as the regression unit test "An A/A diff's lone per-test regression ..." draws them.
  const std::vector<std::string> baseline = {WriteRun(dir, "a0", 21000), WriteRun(dir, "a1", 21100),
                                             WriteRun(dir, "a2", 21200)};
  const std::string same = WriteRun(dir, "b-same", 21900);
  const KvctlRun table = PooledDiff(baseline, same);
  INFO(table.out << table.err);
  CHECK(table.exit_code == 0);
  CHECK(Count(table.out, "would be regression") == 1);
  CHECK(Count(table.out,
              "would be regression by its own 95% interval, but the family-wise control withheld "
              "it: Holm over the family's 48 tests (every metric × 6 scenarios) at α = 0.05") == 1);
  CHECK(Count(table.out,
              "verdicts controlled family-wise (Holm, α = 0.05): 48 tests (every metric × 6 "
              "scenarios), 1 withheld; each interval is its test's own") == 1);

  const KvctlRun json_run = PooledDiff(baseline, same, {"--output", "json"});
  CHECK(json_run.exit_code == 0);
  const nlohmann::json json = nlohmann::json::parse(json_run.out);
  REQUIRE(json["family_wise"].size() == 1);
  CHECK(json["family_wise"][0]["method"] == "holm");
  CHECK(json["family_wise"][0]["tests"] == 48);
  CHECK(json["family_wise"][0]["withheld"] == 1);
  CHECK(CountVerdicts(json, "regression") == 0);
  int withheld = 0;
  for (const nlohmann::json& scenario : json["scenarios"]) {
    for (const nlohmann::json& metric : scenario["metrics"]) {
      REQUIRE(metric["adjusted_p_worse"].is_number());
      CHECK(metric["adjusted_p_worse"].get<double>() >= metric["p_worse"].get<double>());
      if (metric.value("note", "").find("family-wise") == std::string::npos) continue;
      ++withheld;
      CHECK(metric["verdict"] == "inconclusive");
      CHECK(metric["p_worse"].get<double>() < 0.05);  // alone, it would have been flagged
      CHECK(metric["adjusted_p_worse"].get<double>() > 0.05);
    }
  }
  CHECK(withheld == 1);

  // GPU c16's TTFT doubled: its four TTFT metrics survive Holm over the 48, and kvctl exits 9.
  const std::string slower = WriteRun(dir, "b-slower", 21900, 0.4);
  const KvctlRun regressed = PooledDiff(baseline, slower, {"--output", "json"});
  CHECK(regressed.exit_code == 9);
  CHECK(CountVerdicts(nlohmann::json::parse(regressed.out), "regression") == 4);
  CHECK(Count(regressed.err, "4 metric(s) regressed") == 1);
}

}  // namespace
}  // namespace kvbench::testing
