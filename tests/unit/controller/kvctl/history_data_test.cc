// kvctl history's data: runs oldest first, one line per agent x tier x concurrency,
// a value only where the scenario succeeded with the field, and clear errors for a field no run
// has or one that is not a number.

#include "controller/kvctl/history_data.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kvbench::kvctl {
namespace {

v1::Job Run(const std::string& job_id, int64_t submit_ms, const std::string& fire_time,
            std::vector<std::pair<v1::Tier, double>> ttft_p50, bool gpu_fails = false) {
  v1::Job job;
  job.set_job_id(job_id);
  job.set_submit_unix_ms(submit_ms);
  job.set_state(gpu_fails ? v1::JOB_STATE_FAILED : v1::JOB_STATE_SUCCEEDED);
  (*job.mutable_spec()->mutable_labels())["kvbench.fire_time"] = fire_time;
  for (const auto& [tier, value] : ttft_p50) {
    v1::ScenarioStatus& status = *job.add_scenarios();
    status.mutable_scenario()->set_tier(tier);
    status.mutable_scenario()->set_concurrency(4);
    status.mutable_scenario()->set_agent_id("h200-a");
    status.set_agent_id("h200-a");
    const bool failed = gpu_fails && tier == v1::GPU;
    status.set_state(failed ? v1::SCENARIO_STATE_FAILED : v1::SCENARIO_STATE_SUCCEEDED);
    if (!failed) {
      status.mutable_result()->mutable_latency()->set_ttft_p50_s(value);
      status.mutable_result()->set_routing("sticky");
    }
  }
  return job;
}

TEST_CASE("history lines up each tier's metric over the runs, oldest first", "[history]") {
  // As ListJobs returns them: newest first.
  std::vector<v1::Job> jobs = {
      Run("job-3", 3000, "2026-12-03T02:00:00Z", {{v1::GPU, 0.30}, {v1::CPU_RAM, 0.12}}, true),
      Run("job-2", 2000, "2026-12-02T02:00:00Z", {{v1::GPU, 0.25}, {v1::CPU_RAM, 0.11}}),
      Run("job-1", 1000, "2026-12-01T02:00:00Z", {{v1::GPU, 0.20}, {v1::CPU_RAM, 0.10}})};
  absl::StatusOr<report::History> history =
      BuildHistory(jobs, "latency.ttft_p50_s", "schedule nightly");
  REQUIRE(history.ok());
  REQUIRE(history->runs.size() == 3);
  CHECK(history->runs[0].job_id == "job-1");
  CHECK(history->runs[2].fire_time == "2026-12-03T02:00:00Z");
  CHECK(history->runs[2].state == "failed");
  REQUIRE(history->series.size() == 2);
  const report::HistorySeries& gpu = history->series[0];
  CHECK(gpu.tier == v1::GPU);
  CHECK(gpu.agent_id == "h200-a");
  CHECK(gpu.concurrency == 4);
  REQUIRE(gpu.values.size() == 3);
  CHECK(*gpu.values[0] == 0.20);
  CHECK(*gpu.values[1] == 0.25);
  CHECK_FALSE(gpu.values[2].has_value());  // failed: no value, never 0
  CHECK(*history->series[1].values[2] == 0.12);

  const std::string html = report::RenderHistoryHtml(*history);
  CHECK(html.find("kvbench history: schedule nightly") != std::string::npos);
  CHECK(html.find("data-points=\"5\"") != std::string::npos);  // 3 + 2 measured points
  CHECK(html.find("<script") == std::string::npos);
}

TEST_CASE("history names the fields it could use for one no run has", "[history]") {
  std::vector<v1::Job> jobs = {Run("job-1", 1000, "t", {{v1::GPU, 0.2}})};
  absl::StatusOr<report::History> missing = BuildHistory(jobs, "latency.ttft_p42_s", "s");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK_THAT(std::string(missing.status().message()),
             Catch::Contains("no run's results have the field latency.ttft_p42_s; numeric "
                             "fields include: latency.ttft_p50_s"));
  absl::StatusOr<report::History> text = BuildHistory(jobs, "routing", "s");
  REQUIRE_FALSE(text.ok());
  CHECK(text.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(text.status().message()),
             Catch::Contains("--metric routing is not a number (job-1 has \"sticky\")"));
}

TEST_CASE("history charts a capacity search's answer, one line per tier", "[history]") {
  std::vector<v1::Job> jobs;
  for (int run = 0; run < 2; ++run) {
    v1::Job& job = jobs.emplace_back();
    job.set_job_id("job-" + std::to_string(run + 1));
    job.set_submit_unix_ms(1000 * (run + 1));
    for (v1::Tier tier : {v1::GPU, v1::CPU_RAM}) {
      v1::TierCapacity* capacity = job.mutable_capacity()->add_tiers();
      capacity->set_tier(tier);
      capacity->set_finished(run == 0 || tier == v1::GPU);  // run 2's CPU_RAM still searching
      capacity->set_capacity(tier == v1::GPU ? 9 + run : 15);
      capacity->set_low(tier == v1::GPU ? 7 : 15);
      capacity->set_high(tier == v1::GPU ? 10 + run : 19);
    }
  }
  absl::StatusOr<report::History> users = BuildHistory(jobs, kCapacityUsersMetric, "nightly");
  REQUIRE(users.ok());
  REQUIRE(users->series.size() == 2);
  CHECK(users->series[0].tier == v1::GPU);
  CHECK(users->series[0].concurrency == 0);
  CHECK(*users->series[0].values[0] == 9);
  CHECK(*users->series[0].values[1] == 10);
  CHECK(*users->series[1].values[0] == 15);
  CHECK_FALSE(users->series[1].values[1].has_value());  // unfinished: no value
  absl::StatusOr<report::History> high = BuildHistory(jobs, kCapacityHighMetric, "nightly");
  REQUIRE(high.ok());
  CHECK(*high->series[1].values[0] == 19);
  // A job without a search has no capacity line: the field is unknown.
  std::vector<v1::Job> plain = {Run("job-9", 1, "2026-12-01T02:00:00Z", {{v1::GPU, 0.2}})};
  CHECK(BuildHistory(plain, kCapacityUsersMetric, "nightly").status().code() ==
        absl::StatusCode::kNotFound);
}

TEST_CASE("a simulated engine's history is in simulated seconds, with runs' verdicts and alerts",
          "[history]") {
  std::vector<v1::Job> jobs = {
      Run("job-2", 2000, "2026-12-02T02:00:00Z", {{v1::GPU, 0.02}, {v1::CPU_RAM, 0.01}}),
      Run("job-1", 1000, "2026-12-01T02:00:00Z", {{v1::GPU, 0.01}, {v1::CPU_RAM, 0.01}})};
  for (v1::Job& job : jobs) {
    for (v1::ScenarioStatus& status : *job.mutable_scenarios()) {
      // Observed 0.01-0.02 s at sim_time_scale 0.05: 0.2-0.4 simulated s.
      v1::ScenarioResult& result = *status.mutable_result();
      result.set_sim_time_scale(0.05);
      result.mutable_simulated_latency()->set_ttft_p50_s(result.latency().ttft_p50_s() / 0.05);
    }
    v1::Validity* validity = job.add_validity();
    validity->set_comparison_group("c4@h200-a");
    validity->set_verdict(job.job_id() == "job-2" ? v1::VERDICT_VALID : v1::VERDICT_NOT_EXERCISED);
  }
  v1::RegressionAlert* alert = jobs[0].mutable_analysis()->add_alerts();
  alert->set_kind(v1::ALERT_DIFF_REGRESSION);
  alert->set_schedule("nightly");
  alert->set_job_id("job-2");
  alert->set_agent("h200-a");
  alert->set_tier(v1::GPU);
  alert->set_concurrency(4);
  alert->set_metric("ttft_p50_s");
  alert->set_change(100);
  alert->set_change_kind("relative_pct");
  jobs[0].mutable_analysis()->add_alerts()->set_metric("tpot_mean_s");  // another metric's

  absl::StatusOr<report::History> history = BuildHistory(jobs, "latency.ttft_p50_s", "nightly");
  REQUIRE(history.ok());
  CHECK(history->simulated);
  CHECK(*history->series[0].values[0] == Approx(0.2));
  CHECK(*history->series[0].values[1] == Approx(0.4));
  CHECK(history->runs[0].time_unix_s == 1796090400);  // the fire time, not the submit time
  CHECK(history->runs[0].verdicts == std::vector<std::string>{"c4@h200-a not_exercised"});
  CHECK(history->runs[1].alerts == 2);
  REQUIRE(history->alerts.size() == 1);  // of this metric
  CHECK(history->alerts[0].run_index == 1);
  CHECK(history->alerts[0].tier == v1::GPU);

  const std::string html = report::RenderHistoryHtml(*history);
  CHECK(html.find(">TTFT p50 (simulated ms)<") != std::string::npos);
  CHECK(html.find("fire time (UTC)") != std::string::npos);
  CHECK(html.find(">12-01 06:00<") != std::string::npos);  // a time tick, 6-hourly over a day
  CHECK(html.find("<line class=\"alert\"") != std::string::npos);
  CHECK(html.find("GPU: 400 simulated ms, run 2") != std::string::npos);
  CHECK(html.find("c4@h200-a not_exercised") != std::string::npos);
}

TEST_CASE("history keeps the lines --agent, --tier and --concurrency ask for", "[history]") {
  std::vector<v1::Job> jobs = {Run("job-1", 1000, "t", {{v1::GPU, 0.2}, {v1::CPU_RAM, 0.1}})};
  HistoryFilter gpu;
  gpu.tier = v1::GPU;
  absl::StatusOr<report::History> one = BuildHistory(jobs, "latency.ttft_p50_s", "s", gpu);
  REQUIRE(one.ok());
  REQUIRE(one->series.size() == 1);
  CHECK(one->series[0].tier == v1::GPU);
  HistoryFilter other;
  other.agent = "h100-b";
  other.concurrency = 8;
  absl::StatusOr<report::History> none = BuildHistory(jobs, "latency.ttft_p50_s", "s", other);
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().code() == absl::StatusCode::kNotFound);
  CHECK_THAT(std::string(none.status().message()),
             Catch::Contains("they have agents h200-a, tiers CPU_RAM, GPU, concurrency 4"));
}

}  // namespace
}  // namespace kvbench::kvctl
