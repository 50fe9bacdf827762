#include "agent/results/scenario_metrics.h"

#include <catch2/catch.hpp>
#include <vector>

#include "tests/unit/agent/results/replay_fixture.h"

namespace kvbench::agent::results {
namespace {

using testing::Failed;
using testing::Ok;
using testing::TwoUsersThreeRounds;

TEST_CASE("Metrics TTFT and TPOT of two users by three rounds", "[results]") {
  const v1::LatencyMetrics m = ComputeLatencyMetrics(TwoUsersThreeRounds());
  // Successful TTFTs sorted: 0.5 1.0 1.0 1.5 2.0.
  CHECK(m.ttft_mean_s() == Approx(1.2));
  CHECK(m.ttft_p50_s() == Approx(1.0));
  CHECK(m.ttft_p90_s() == Approx(1.8));   // h = 3.6
  CHECK(m.ttft_p95_s() == Approx(1.9));   // h = 3.8
  CHECK(m.ttft_p99_s() == Approx(1.98));  // h = 3.96
  // TPOT over requests with >= 2 output tokens: 0.1 0.1 0.05 0.5.
  CHECK(m.tpot_mean_s() == Approx(0.1875));
}

TEST_CASE("Metrics throughput over the measured window", "[results]") {
  const v1::LatencyMetrics m = ComputeLatencyMetrics(TwoUsersThreeRounds());
  CHECK(m.duration_s() == Approx(8.0));  // first scheduled 0 to last end 8 (the failure)
  CHECK(m.requests_completed() == 5);
  CHECK(m.input_tokens_per_s() == Approx(900.0 / 8));
  CHECK(m.output_tokens_per_s() == Approx(47.0 / 8));
  CHECK(m.requests_per_s() == Approx(5.0 / 8));
  // Lags sorted 0 0.01 0.02 0.02 0.03 0.1; h = 4.95.
  CHECK(m.dispatch_lag_p99_s() == Approx(0.0965));
  CHECK_FALSE(m.has_reuse_same_user_pct());
  CHECK_FALSE(m.has_reuse_any_user_pct());
}

TEST_CASE("Metrics TTFT by round and degradation", "[results]") {
  const v1::LatencyMetrics m = ComputeLatencyMetrics(TwoUsersThreeRounds());
  REQUIRE(m.ttft_by_round_size() == 3);
  struct Row {
    int round, count;
    double p50, p95, mean;
  };
  const Row rows[] = {{1, 2, 0.75, 0.975, 0.75}, {2, 2, 1.5, 1.95, 1.5}, {3, 1, 1.5, 1.5, 1.5}};
  for (int i = 0; i < 3; ++i) {
    INFO("round " << rows[i].round);
    const v1::RoundLatency& r = m.ttft_by_round(i);
    CHECK(r.round() == rows[i].round);
    CHECK(r.count() == rows[i].count);
    CHECK(r.ttft_p50_s() == Approx(rows[i].p50));
    CHECK(r.ttft_p95_s() == Approx(rows[i].p95));
    CHECK(r.ttft_mean_s() == Approx(rows[i].mean));
  }
  // Rounds >= 2 pooled: 1.0 1.5 2.0 -> median 1.5, p95 1.95; round 1: median 0.75, p95 0.975.
  CHECK(m.ttft_degradation_median_pct() == Approx(100.0));
  CHECK(m.ttft_degradation_p95_pct() == Approx(100.0));
}

TEST_CASE("Metrics degradation can be negative", "[results]") {
  const std::vector<runner::RequestRecord> records = {Ok("a", 1, 0, 0, 2.0, 3, 10, 1),
                                                      Ok("a", 2, 3, 3, 4.0, 5, 10, 1)};
  const v1::LatencyMetrics m = ComputeLatencyMetrics(records);
  CHECK(m.ttft_degradation_median_pct() == Approx(-50.0));  // 2.0 -> 1.0
  CHECK(m.ttft_degradation_p95_pct() == Approx(-50.0));
}

TEST_CASE("Metrics are null never zero when there are no requests", "[results]") {
  const v1::LatencyMetrics m = ComputeLatencyMetrics({});
  CHECK_FALSE(m.has_ttft_mean_s());
  CHECK_FALSE(m.has_ttft_p50_s());
  CHECK_FALSE(m.has_ttft_p90_s());
  CHECK_FALSE(m.has_ttft_p95_s());
  CHECK_FALSE(m.has_ttft_p99_s());
  CHECK_FALSE(m.has_tpot_mean_s());
  CHECK_FALSE(m.has_input_tokens_per_s());
  CHECK_FALSE(m.has_output_tokens_per_s());
  CHECK_FALSE(m.has_requests_per_s());
  CHECK_FALSE(m.has_ttft_degradation_median_pct());
  CHECK_FALSE(m.has_ttft_degradation_p95_pct());
  CHECK_FALSE(m.has_dispatch_lag_p99_s());
  CHECK(m.ttft_by_round_size() == 0);
  CHECK(m.duration_s() == 0);
  CHECK(m.requests_completed() == 0);
}

TEST_CASE("Metrics degradation is null when undefined", "[results]") {
  SECTION("only round 1") {
    const v1::LatencyMetrics m = ComputeLatencyMetrics({Ok("a", 1, 0, 0, 1, 2, 10, 1)});
    CHECK(m.has_ttft_p50_s());
    CHECK_FALSE(m.has_ttft_degradation_median_pct());
    CHECK_FALSE(m.has_ttft_degradation_p95_pct());
  }
  SECTION("round 1 failed so there is no baseline") {
    const v1::LatencyMetrics m =
        ComputeLatencyMetrics({Failed("a", 1, 0, 0, 1, 10), Ok("a", 2, 1, 1, 2, 3, 10, 1)});
    CHECK_FALSE(m.has_ttft_degradation_median_pct());
    CHECK_FALSE(m.has_ttft_degradation_p95_pct());
    REQUIRE(m.ttft_by_round_size() == 2);
    CHECK(m.ttft_by_round(0).count() == 0);  // round 1 seen but without samples
    CHECK_FALSE(m.ttft_by_round(0).has_ttft_p50_s());
    CHECK_FALSE(m.ttft_by_round(0).has_ttft_mean_s());
  }
  SECTION("zero baseline") {
    const v1::LatencyMetrics m =
        ComputeLatencyMetrics({Ok("a", 1, 0, 0, 0, 1, 10, 1), Ok("a", 2, 1, 1, 2, 3, 10, 1)});
    CHECK_FALSE(m.has_ttft_degradation_median_pct());
    CHECK_FALSE(m.has_ttft_degradation_p95_pct());
  }
}

TEST_CASE("Metrics with only failed requests", "[results]") {
  const v1::LatencyMetrics m =
      ComputeLatencyMetrics({Failed("a", 1, 0, 0.5, 2, 10), Failed("b", 1, 0, 0.1, 4, 10)});
  CHECK_FALSE(m.has_ttft_mean_s());
  CHECK_FALSE(m.has_tpot_mean_s());
  CHECK(m.duration_s() == Approx(4));
  CHECK(m.requests_completed() == 0);
  CHECK(m.requests_per_s() == 0);  // the window exists and nothing succeeded in it
  CHECK(m.dispatch_lag_p99_s() == Approx(0.1 + 0.99 * 0.4));
}

TEST_CASE("Metrics rates are null for a zero-length window", "[results]") {
  const v1::LatencyMetrics m = ComputeLatencyMetrics({Ok("a", 1, 1, 1, 1, 1, 10, 1)});
  CHECK(m.duration_s() == 0);
  CHECK_FALSE(m.has_input_tokens_per_s());
  CHECK_FALSE(m.has_output_tokens_per_s());
  CHECK_FALSE(m.has_requests_per_s());
}

TEST_CASE("Metrics session counts of two users by three rounds", "[results]") {
  // a completes, b fails round 3, c was planned but never sent anything.
  const v1::SessionCounts s =
      ComputeSessionCounts(TwoUsersThreeRounds(), /*requested_users=*/4,
                           /*dataset_ceiling=*/3, {{"a", 3}, {"b", 3}, {"c", 3}});
  CHECK(s.requested() == 4);
  CHECK(s.dataset_ceiling() == 3);
  CHECK(s.achieved() == 3);
  CHECK(s.total() == 3);
  CHECK(s.complete() == 1);
  CHECK(s.error() == 1);
  CHECK(s.not_started() == 1);
  CHECK(s.incomplete() == 0);
  CHECK(s.failed_requests() == 1);
  CHECK(s.first_error() == "timeout");
}

// A run in which every request failed must not read "ok"; the first error (by send time, not by
// the order requests finished) is what the status shows.
TEST_CASE("Metrics session counts keep the earliest sent failure's error", "[results]") {
  std::vector<runner::RequestRecord> records = TwoUsersThreeRounds();
  CHECK(ComputeSessionCounts({records[0]}, 1, 1, {{"a", 1}}).first_error().empty());
  runner::RequestRecord late = testing::Failed("c", 1, 0.0, 0.3, 0.4, 5000);
  late.error = "stream_error: the request needs 313 KV blocks";
  late.http_status = 200;
  runner::RequestRecord early = testing::Failed("d", 1, 0.0, 0.05, 9.0, 5000);
  early.error = "http_error: Bad Request";
  early.http_status = 400;
  records.push_back(late);   // finished first
  records.push_back(early);  // sent first
  const v1::SessionCounts s = ComputeSessionCounts(records, 4, 4, {});
  CHECK(s.failed_requests() == 3);
  CHECK(s.first_error() == "http_error: Bad Request (HTTP 400)");
  records.pop_back();
  CHECK(ComputeSessionCounts(records, 4, 4, {}).first_error() ==
        "stream_error: the request needs 313 KV blocks");
}

TEST_CASE("Metrics token totals are the successful requests' sums", "[results]") {
  v1::LatencyMetrics m = ComputeLatencyMetrics(TwoUsersThreeRounds());
  CHECK(m.prompt_tokens_total() == 900);  // the failed round-3 request of b is not counted
  CHECK(m.output_tokens_total() == 47);
  CHECK_FALSE(m.has_cached_tokens_total());  // no record reported cached_tokens
  std::vector<runner::RequestRecord> records = TwoUsersThreeRounds();
  records[2].cached_tokens = 128;  // a round 2
  records[3].cached_tokens = 0;    // b round 2
  records[5].cached_tokens = 256;  // b round 3, failed: not counted
  m = ComputeLatencyMetrics(records);
  REQUIRE(m.has_cached_tokens_total());
  CHECK(m.cached_tokens_total() == 128);
}

TEST_CASE("Metrics session outcomes are exclusive (sessions as they happened)", "[results]") {
  // Every user expects 3 rounds; `sendable` is what ISL left of them.
  struct Row {
    const char* name;
    int sendable;
    std::vector<runner::RequestRecord> records;
    const char* outcome;
  };
  const std::vector<Row> rows = {
      {"all rounds ok",
       3,
       {Ok("u", 1, 0, 0, 1, 2, 10, 1), Ok("u", 2, 2, 2, 3, 4, 10, 1),
        Ok("u", 3, 4, 4, 5, 6, 10, 1)},
       "complete"},
      {"ISL cut after round 2, both sent",
       2,
       {Ok("u", 1, 0, 0, 1, 2, 10, 1), Ok("u", 2, 2, 2, 3, 4, 10, 1)},
       "truncated_by_isl"},
      {"round 1 over ISL, nothing sent", 0, {}, "truncated_by_isl"},
      {"ISL left 2, only 1 sent (stopped)", 2, {Ok("u", 1, 0, 0, 1, 2, 10, 1)}, "incomplete"},
      {"stopped after round 1", 3, {Ok("u", 1, 0, 0, 1, 2, 10, 1)}, "incomplete"},
      {"stopped before its first send", 3, {}, "not_started"},
      {"ISL left 2, never sent (stopped)", 2, {}, "not_started"},
      {"round 2 failed", 3, {Ok("u", 1, 0, 0, 1, 2, 10, 1), Failed("u", 2, 2, 2, 3, 10)}, "error"},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    SessionPlan plan;
    plan.requested = 1;
    plan.dataset_ceiling = 1;
    plan.planned_users = {{"u", 3, "s-u", row.sendable}};
    const v1::SessionCounts s = ComputeSessionCounts(row.records, plan);
    const std::string outcome = s.complete() == 1           ? "complete"
                                : s.truncated_by_isl() == 1 ? "truncated_by_isl"
                                : s.incomplete() == 1       ? "incomplete"
                                : s.not_started() == 1      ? "not_started"
                                : s.error() == 1            ? "error"
                                                            : "none";
    CHECK(outcome == row.outcome);
    CHECK(s.total() == 1);
    CHECK(s.complete() + s.incomplete() + s.error() + s.not_started() + s.truncated_by_isl() == 1);
  }
}

TEST_CASE("Metrics achieved sessions are capped by the ceiling under ISL", "[results]") {
  SessionPlan plan;
  plan.requested = 16;
  plan.dataset_ceiling = 12;
  plan.selection = "all 12 virtual users";
  v1::SessionCounts s = ComputeSessionCounts({}, plan);
  CHECK(s.achieved() == 12);
  CHECK_FALSE(s.has_dataset_ceiling_under_isl());
  CHECK(s.selection() == "all 12 virtual users");
  plan.dataset_ceiling_under_isl = 3;
  s = ComputeSessionCounts({}, plan);
  CHECK(s.achieved() == 3);
  CHECK(s.dataset_ceiling_under_isl() == 3);
}

TEST_CASE("Metrics session counts of users stopped early", "[results]") {
  // d stopped after 2 of 3 rounds (SIGINT); e is not in the plan; f has a gap.
  const std::vector<runner::RequestRecord> records = {
      Ok("d", 1, 0, 0, 1, 2, 10, 1), Ok("d", 2, 2, 2, 3, 4, 10, 1), Ok("e", 1, 0, 0, 1, 2, 10, 1),
      Ok("f", 1, 0, 0, 1, 2, 10, 1), Ok("f", 3, 2, 2, 3, 4, 10, 1)};
  const v1::SessionCounts s = ComputeSessionCounts(records, 2, 10, {{"d", 3}, {"f", 2}});
  CHECK(s.achieved() == 2);
  CHECK(s.total() == 3);
  CHECK(s.complete() == 0);
  CHECK(s.incomplete() == 3);
  CHECK(s.error() == 0);
  CHECK(s.failed_requests() == 0);
}

TEST_CASE("Metrics session counts with no records", "[results]") {
  const v1::SessionCounts s = ComputeSessionCounts({}, 5, 0, {});
  CHECK(s.achieved() == 0);
  CHECK(s.total() == 0);
  CHECK(s.complete() == 0);
  CHECK(s.incomplete() == 0);
  CHECK(s.error() == 0);
}

}  // namespace
}  // namespace kvbench::agent::results
