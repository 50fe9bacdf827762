#include "agent/results/summary_json.h"

#include <catch2/catch.hpp>

#include "agent/results/scenario_metrics.h"
#include "agent/results/session_plan_json.h"
#include "tests/unit/agent/results/replay_fixture.h"

namespace kvbench::agent::results {
namespace {

constexpr const char* kOptionalKeys[] = {"ttft_mean_s",
                                         "ttft_p50_s",
                                         "ttft_p90_s",
                                         "ttft_p95_s",
                                         "ttft_p99_s",
                                         "tpot_mean_s",
                                         "input_tokens_per_s",
                                         "output_tokens_per_s",
                                         "requests_per_s",
                                         "ttft_degradation_median_pct",
                                         "ttft_degradation_p95_pct",
                                         "reuse_same_user_pct",
                                         "reuse_any_user_pct",
                                         "dispatch_lag_p99_s"};
constexpr const char* kCountKeys[] = {
    "sessions_requested",  "sessions_achieved",    "sessions_dataset_ceiling",
    "sessions_total",      "sessions_complete",    "sessions_incomplete",
    "sessions_error",      "failed_requests",      "duration_s",
    "requests_completed",  "sessions_not_started", "sessions_truncated_by_isl",
    "prompt_tokens_total", "output_tokens_total"};

TEST_CASE("Summary JSON of the two-user replay", "[results]") {
  const auto records = testing::TwoUsersThreeRounds();
  v1::LatencyMetrics latency = ComputeLatencyMetrics(records);
  latency.set_reuse_same_user_pct(12.5);
  const v1::SessionCounts sessions = ComputeSessionCounts(records, 2, 2, {{"a", 3}, {"b", 3}});
  const nlohmann::json j = SummaryJson(latency, sessions);

  for (const char* key : kOptionalKeys) {
    INFO(key);
    CHECK(j.contains(key));
  }
  for (const char* key : kCountKeys) {
    INFO(key);
    REQUIRE(j.contains(key));
    CHECK(j[key].is_number());
  }
  CHECK(j["ttft_mean_s"].get<double>() == Approx(1.2));
  CHECK(j["ttft_p99_s"].get<double>() == Approx(1.98));
  CHECK(j["ttft_degradation_median_pct"].get<double>() == Approx(100));
  CHECK(j["reuse_same_user_pct"].get<double>() == Approx(12.5));
  CHECK(j["reuse_any_user_pct"].is_null());
  CHECK(j["sessions_requested"] == 2);
  CHECK(j["sessions_total"] == 2);
  CHECK(j["sessions_complete"] == 1);
  CHECK(j["sessions_incomplete"] == 0);
  CHECK(j["sessions_error"] == 1);
  CHECK(j["failed_requests"] == 1);

  const nlohmann::json& rounds = j["ttft_by_round"];
  REQUIRE(rounds.is_array());
  REQUIRE(rounds.size() == 3);
  CHECK(rounds[0]["round"] == 1);
  CHECK(rounds[0]["count"] == 2);
  CHECK(rounds[0]["p50_s"].get<double>() == Approx(0.75));
  CHECK(rounds[0]["p95_s"].get<double>() == Approx(0.975));
  CHECK(rounds[2]["round"] == 3);
  CHECK(rounds[2]["count"] == 1);
}

TEST_CASE("Summary JSON writes null not zero for an empty replay", "[results]") {
  const nlohmann::json j =
      SummaryJson(ComputeLatencyMetrics({}), ComputeSessionCounts({}, 4, 0, {}));
  for (const char* key : kOptionalKeys) {
    INFO(key);
    REQUIRE(j.contains(key));
    CHECK(j[key].is_null());
  }
  CHECK(j["ttft_by_round"].is_array());
  CHECK(j["ttft_by_round"].empty());
  CHECK(j["sessions_requested"] == 4);
  CHECK(j["sessions_achieved"] == 0);
  CHECK(j["requests_completed"] == 0);
}

TEST_CASE("Summary JSON round entry without samples has null percentiles", "[results]") {
  v1::LatencyMetrics latency;
  v1::RoundLatency* round = latency.add_ttft_by_round();
  round->set_round(1);
  round->set_count(0);
  const nlohmann::json j = SummaryJson(latency, v1::SessionCounts());
  CHECK(j["ttft_by_round"][0]["count"] == 0);
  CHECK(j["ttft_by_round"][0]["p50_s"].is_null());
  CHECK(j["ttft_by_round"][0]["p95_s"].is_null());
  CHECK(j["ttft_by_round"][0]["mean_s"].is_null());
}

TEST_CASE("Summary JSON carries the runner's plan and reads it back", "[results]") {
  SessionPlan plan;
  plan.requested = 4;
  plan.dataset_ceiling = 12;
  plan.dataset_ceiling_under_isl = 3;
  plan.selection = "2 of 12 virtual users, seeded (seed 0), spread over 2 sessions";
  plan.planned_users = {{"0001-00", 5, "s1", 2}, {"0004-00", 5, "s4", -1}};
  nlohmann::json summary = SummaryJson(ComputeLatencyMetrics({}), ComputeSessionCounts({}, plan));
  AddSessionPlan(plan, &summary);
  CHECK(summary["planned_users"][1] == nlohmann::json({{"user_id", "0004-00"},
                                                       {"session_id", "s4"},
                                                       {"expected_rounds", 5},
                                                       {"sendable_rounds", 5}}));
  CHECK(summary["dataset_ceiling_under_isl"] == 3);
  CHECK(summary["sessions_not_started"] == 2);  // no records: neither user sent anything
  CHECK(summary["sessions_truncated_by_isl"] == 0);
  absl::StatusOr<std::optional<SessionPlan>> back = ParseSessionPlan(summary);
  REQUIRE(back.ok());
  REQUIRE(back->has_value());
  const SessionPlan& read = **back;
  CHECK(read.requested == 4);
  CHECK(read.dataset_ceiling == 12);
  CHECK(read.dataset_ceiling_under_isl == 3);
  CHECK(read.selection == plan.selection);
  REQUIRE(read.planned_users.size() == 2);
  CHECK(read.planned_users[0].sendable_rounds == 2);
  CHECK(read.planned_users[1].session_id == "s4");

  summary.erase("dataset_ceiling_under_isl");
  CHECK_FALSE((*ParseSessionPlan(summary))->dataset_ceiling_under_isl.has_value());
  summary["planned_users"][0]["sendable_rounds"] = "2";
  CHECK_THAT(std::string(ParseSessionPlan(summary).status().message()),
             Catch::Contains("planned_users[0].sendable_rounds"));
  summary.erase("planned_users");
  CHECK_FALSE(ParseSessionPlan(summary)->has_value());  // an older runner's summary
}

}  // namespace
}  // namespace kvbench::agent::results
