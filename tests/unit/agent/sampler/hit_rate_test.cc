// ComputeHitRate (per replica, end-aligned steps, final quarter by time, the short-run fallback)
// and UseOneMethod: hand-computed tables.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "agent/sampler/rate_math.h"
#include "tests/unit/agent/sampler/rate_math_test_helpers.h"

namespace kvbench::sampler {
namespace {

using testing::CheckOptional;
using testing::Sampled;
using testing::Series;

TEST_CASE("ComputeHitRate: final-quarter mean of rate(hits) / rate(queries)", "[sampler]") {
  // Step 15, window 30: each window (t - 30, t] holds the samples at t - 15 and t; start 15
  // unless the zero clamp (15 x first / inc) is shorter; end 0.
  //   t:       0    15    30    45    60    75    90   105   120   135
  //   queries: 0   150   300   450   600   750   900  1050  1200  1350
  //   hits:    0     0    30   105   180   255   345   435   555   630
  // rate(queries): t=15: inc 150, clamp 0 -> 150/30 = 5; t>=30: inc 150, clamp >= 15 -> 300/30
  // = 10. rate(hits): t=15: inc 0 -> 0; t=30: inc 30, clamp 0 -> 30/30 = 1; t=45: inc 75, clamp
  // 15 x 30/75 = 6 -> 75 x 21/15 / 30 = 3.5; t>=60: inc x 2 / 30 (clamp >= 15): 5, 5, 6, 6, 8, 5.
  // Ratios: 0, 0.1, 0.35, 0.5, 0.5, 0.6, 0.6, 0.8, 0.5 at t = 15..135 (9 steps >= 8).
  // The final quarter of the replay 0..135 is t >= 101.25: (0.6 + 0.8 + 0.5) / 3 = 0.6333.
  // (The whole-run diff would give 630 / 1350 = 0.467: the warm-up drags it down.)
  const auto queries = Series(0, 15, {0, 150, 300, 450, 600, 750, 900, 1050, 1200, 1350});
  const auto hits = Series(0, 15, {0, 0, 30, 105, 180, 255, 345, 435, 555, 630});
  const HitRate hit_rate = ComputeHitRate(hits, queries, 15, 30);
  const double expected[] = {0, 0.1, 0.35, 0.5, 0.5, 0.6, 0.6, 0.8, 0.5};
  REQUIRE(hit_rate.series.size() == 9);
  for (std::size_t i = 0; i < hit_rate.series.size(); ++i) {
    INFO("step " << i);
    CHECK(hit_rate.series[i].t_s == 15.0 * static_cast<double>(i + 1));
    CHECK(hit_rate.series[i].value == Approx(expected[i]).margin(1e-12));
  }
  CHECK(hit_rate.method == HitRateMethod::kRollingFinalQuarter);
  REQUIRE(hit_rate.value.has_value());
  CHECK(*hit_rate.value == Approx(1.9 / 3));
  REQUIRE(hit_rate.before_after.has_value());
  CHECK(*hit_rate.before_after == Approx(630.0 / 1350));
}

TEST_CASE("ComputeHitRate with a left-closed window steps like Prometheus 2.x", "[sampler]") {
  // The table above with windows [t - 30, t]: three samples each from t = 30 (start 0, end 0),
  // two at t = 15 (start 15 < 16.5 kept, then clamped to 0). rate(queries): t=15: 150 x 15 / 15 /
  // 30 = 5; t>=30: 300 / 30 = 10. rate(hits) = inc / 30: 0, 30, 105, 150, 150, 165, 180, 210,
  // 195 at t = 15..135. Ratios: 0, 0.1, 0.35, 0.5, 0.5, 0.55, 0.6, 0.7, 0.65 (left-open: 0.6 at
  // t = 90, whose window then drops the sample at t = 60); final quarter (t >= 101.25)
  // (0.6 + 0.7 + 0.65) / 3 = 0.65.
  const auto queries = Series(0, 15, {0, 150, 300, 450, 600, 750, 900, 1050, 1200, 1350});
  const auto hits = Series(0, 15, {0, 0, 30, 105, 180, 255, 345, 435, 555, 630});
  const HitRate hit_rate = ComputeHitRate(hits, queries, 15, 30, WindowEdge::kLeftClosed);
  const double expected[] = {0, 0.1, 0.35, 0.5, 0.5, 0.55, 0.6, 0.7, 0.65};
  REQUIRE(hit_rate.series.size() == 9);
  for (std::size_t i = 0; i < hit_rate.series.size(); ++i) {
    INFO("step " << i);
    CHECK(hit_rate.series[i].t_s == 15.0 * static_cast<double>(i + 1));
    CHECK(hit_rate.series[i].value == Approx(expected[i]).margin(1e-12));
  }
  REQUIRE(hit_rate.value.has_value());
  CHECK(*hit_rate.value == Approx(0.65));
  // WindowedRate passes the edge through: the same rates of queries.
  const auto rates = WindowedRate(queries, 15, 30, WindowEdge::kLeftClosed);
  REQUIRE(rates.size() == 9);
  CHECK(rates[0].value == Approx(5));
  CHECK(rates[8].value == Approx(10));
}

TEST_CASE("ComputeHitRate at 15 s / 300 s reports the plateau, not the warm-up", "[sampler]") {
  // Queries 100 tokens/s from t = 0; hits 0 until t = 300, then 50/s; run to t = 900.
  // 60 steps (t = 15..900); the final quarter is t >= 675, whose windows (t-300, t] start
  // after 300: rate(hits) = 50 (clamp t0 - 300 >= 90 > 15 never binds), rate(queries) = 100.
  // Value 0.5; the whole-run diff would be 30000 / 90000 = 0.333.
  const auto queries = Sampled(15, 900, [](double t) { return 100 * t; });
  const auto hits = Sampled(15, 900, [](double t) { return t <= 300 ? 0.0 : 50 * (t - 300); });
  const HitRate hit_rate = ComputeHitRate(hits, queries, 15, 300);
  CHECK(hit_rate.series.size() == 60);
  CHECK(hit_rate.method == HitRateMethod::kRollingFinalQuarter);
  REQUIRE(hit_rate.value.has_value());
  CHECK(*hit_rate.value == Approx(0.5));
}

TEST_CASE("ComputeHitRate: the series reaches the end of a short replay", "[sampler]") {
  // The demo at 1 replica, sim_time_scale 0.5: a 4.7 s CPU_RAM replay, scrapes every 2 s (real),
  // a 30 s window. External hits start after the scrape at t = 2. Steps from the start (0, 2, 4)
  // reported the single ratio at t = 2: 0.0%. Steps back from the end are 0.7, 2.7 and 4.7 — too
  // few for a plateau (< kMinStepsForPlateau) — so the value is Δhits / Δqueries.
  const std::vector<Point> queries = {{0, 0}, {2.0, 30000}, {4.0, 80000}, {4.7, 105631}};
  const std::vector<Point> hits = {{0, 0}, {2.0, 0}, {4.0, 40000}, {4.7, 62320}};
  const HitRate hit_rate = ComputeHitRate(hits, queries, 2.0, 30.0);
  CHECK(hit_rate.method == HitRateMethod::kBeforeAfter);
  REQUIRE(hit_rate.value.has_value());
  CHECK(*hit_rate.value == Approx(62320.0 / 105631));  // 59%
  REQUIRE_FALSE(hit_rate.series.empty());
  CHECK(hit_rate.series.back().t_s == Approx(4.7));  // the chart reaches the "after" scrape
  CHECK(hit_rate.series.back().value > 0.5);
}

TEST_CASE("ComputeHitRate needs kMinStepsForPlateau ratio steps for the rolling mean",
          "[sampler]") {
  // Step 1, window 2: queries 10/s, hits 5/s from t = 2 (0 before). Each window (t - 2, t] holds
  // t - 1 and t; from t = 4 rate(hits) = 5 and rate(queries) = 10: the plateau is 0.5. Ratio
  // steps are t = 1..last. The whole-run diff is 5 (last - 2) / (10 last).
  for (const int last : {7, 8}) {
    INFO("last t = " << last);
    const auto queries = Sampled(1, last, [](double t) { return 10 * t; });
    const auto hits = Sampled(1, last, [](double t) { return t <= 2 ? 0.0 : 5 * (t - 2); });
    const HitRate hit_rate = ComputeHitRate(hits, queries, 1, 2);
    CHECK(hit_rate.series.size() == static_cast<std::size_t>(last));
    REQUIRE(hit_rate.value.has_value());
    if (static_cast<std::size_t>(last) < kMinStepsForPlateau) {
      CHECK(hit_rate.method == HitRateMethod::kBeforeAfter);
      CHECK(*hit_rate.value == Approx(5.0 * (last - 2) / (10.0 * last)));
    } else {
      CHECK(hit_rate.method == HitRateMethod::kRollingFinalQuarter);
      CHECK(*hit_rate.value == Approx(0.5));
    }
  }
}

TEST_CASE("ComputeHitRate over replicas: sum(rate(hits)) / sum(rate(queries))", "[sampler]") {
  // Step 15, window 300, replay 0..180. Replica A: queries 10/s, hits 5/s throughout. Replica B:
  // queries 10/s, hits 8/s, killed after its scrape at t = 60 (no points after).
  // PromQL per replica at t >= 90: A's window holds 0..t (start clamped to 0, end 0): hits t/60,
  // queries t/30 per second. B's holds 0..60: inc 480 / 600, s 60, avg 15; start clamped to 0;
  // end t - 60 >= 16.5 -> 7.5: hits 480 x 67.5 / 60 / 300 = 1.8, queries 2.25.
  // Ratio (t/60 + 1.8) / (t/30 + 2.25); the final quarter is t >= 135: t = 135, 150, 165, 180.
  ReplicaCounters a{Sampled(15, 180, [](double t) { return 5 * t; }),
                    Sampled(15, 180, [](double t) { return 10 * t; })};
  ReplicaCounters b{Sampled(15, 60, [](double t) { return 8 * t; }),
                    Sampled(15, 60, [](double t) { return 10 * t; })};
  const HitRate hit_rate = ComputeHitRate({a, b}, 15, 300);
  auto ratio = [](double t) { return (t / 60 + 1.8) / (t / 30 + 2.25); };
  const double expected = (ratio(135) + ratio(150) + ratio(165) + ratio(180)) / 4;  // 0.5905
  CHECK(hit_rate.method == HitRateMethod::kRollingFinalQuarter);
  REQUIRE(hit_rate.value.has_value());
  CHECK(*hit_rate.value == Approx(expected));
  REQUIRE(hit_rate.series.size() == 12);  // t = 15..180
  CHECK(hit_rate.series.back().value == Approx(ratio(180)));
  // Before/after per replica, summed: (900 + 480) / (1800 + 600).
  REQUIRE(hit_rate.before_after.has_value());
  CHECK(*hit_rate.before_after == Approx(1380.0 / 2400));

  // The old way, counters summed over replicas first: the drop at t = 75 (B gone) reads as a
  // reset of the whole fleet and adds B's and A's totals back: a different number.
  std::vector<Point> summed_hits = a.hits;
  std::vector<Point> summed_queries = a.queries;
  for (std::size_t i = 0; i < b.hits.size(); ++i) {
    summed_hits[i].value += b.hits[i].value;
    summed_queries[i].value += b.queries[i].value;
  }
  const HitRate summed = ComputeHitRate(summed_hits, summed_queries, 15, 300);
  REQUIRE(summed.value.has_value());
  CHECK(std::abs(*summed.value - expected) > 0.02);
}

TEST_CASE("ComputeHitRate falls back to the before/after diff on short runs", "[sampler]") {
  struct Case {
    const char* name;
    std::vector<ReplicaCounters> replicas;
    std::optional<double> expected;
  };
  const std::vector<Case> cases = {
      // Before and after only: Δhits / Δqueries = 40 / 100.
      {"before and after, 10 s apart", {{{{0, 1000}, {10, 1040}}, {{0, 5000}, {10, 5100}}}}, 0.4},
      // Three points within one 15 s step: the grid holds only t = 10, one ratio step.
      {"three points within one step",
       {{{{0, 0}, {5, 20}, {10, 40}}, {{0, 0}, {5, 50}, {10, 100}}}},
       0.4},
      // The server restarted in between: Δhits = 30 - 1000 + 1000 = 30; Δqueries = 100.
      {"counter reset between before and after",
       {{{{0, 1000}, {10, 30}}, {{0, 5000}, {10, 100}}}},
       0.3},
      // Per replica, summed: (40 + 10) / (100 + 100).
      {"two replicas",
       {{{{0, 0}, {10, 40}}, {{0, 0}, {10, 100}}}, {{{0, 500}, {10, 510}}, {{0, 900}, {10, 1000}}}},
       0.25},
      // A replica that answered only the "before" scrape adds nothing.
      {"a replica with one scrape",
       {{{{0, 0}, {10, 40}}, {{0, 0}, {10, 100}}}, {{{0, 500}}, {{0, 900}}}},
       0.4},
      {"no queries: null, not 0", {{{{0, 10}, {10, 10}}, {{0, 50}, {10, 50}}}}, std::nullopt},
      {"only the before scrape: null", {{{{0, 10}}, {{0, 50}}}}, std::nullopt},
      {"no replicas: null", {}, std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const HitRate hit_rate = ComputeHitRate(c.replicas, 15, 300);
    CHECK(hit_rate.series.size() < kMinStepsForPlateau);
    CheckOptional(hit_rate.value, c.expected);
    CHECK(hit_rate.method == (c.expected ? HitRateMethod::kBeforeAfter : HitRateMethod::kNone));
  }
}

TEST_CASE("ComputeHitRate is null, not 0, when a counter is absent or never moves", "[sampler]") {
  const auto queries = Series(0, 15, {0, 100, 200, 300});
  const auto hits = Series(0, 15, {0, 50, 100, 150});
  CHECK(*ComputeHitRate(hits, queries, 15, 300).value == Approx(0.5));

  const HitRate no_hits = ComputeHitRate({}, queries, 15, 300);
  CHECK(no_hits.series.empty());
  CHECK_FALSE(no_hits.value.has_value());

  const HitRate no_queries = ComputeHitRate(hits, {}, 15, 300);
  CHECK(no_queries.series.empty());
  CHECK_FALSE(no_queries.value.has_value());

  // rate(queries) = 0 at every step: no ratio anywhere, and Δqueries = 0.
  const auto flat = Series(0, 15, {40, 40, 40, 40});
  const HitRate idle = ComputeHitRate(flat, flat, 15, 300);
  CHECK(idle.series.empty());
  CHECK_FALSE(idle.value.has_value());
}

TEST_CASE("UseOneMethod: local and external share one method", "[sampler]") {
  auto rate = [](std::optional<double> value, HitRateMethod method, std::optional<double> diff) {
    HitRate r;
    r.value = value;
    r.method = method;
    r.before_after = diff;
    return r;
  };
  using M = HitRateMethod;
  {
    INFO("both rolling: unchanged");
    HitRate local = rate(0.6, M::kRollingFinalQuarter, 0.5);
    HitRate external = rate(0.3, M::kRollingFinalQuarter, 0.2);
    UseOneMethod(&local, &external);
    CHECK(*local.value == 0.6);
    CHECK(*external.value == 0.3);
  }
  {
    INFO("mixed: both before/after");
    HitRate local = rate(0.6, M::kRollingFinalQuarter, 0.5);
    HitRate external = rate(0.2, M::kBeforeAfter, 0.2);
    UseOneMethod(&local, &external);
    CHECK(*local.value == 0.5);
    CHECK(local.method == M::kBeforeAfter);
    CHECK(*external.value == 0.2);
  }
  {
    INFO("external absent (GPU): local unchanged");
    HitRate local = rate(0.6, M::kRollingFinalQuarter, 0.5);
    HitRate external = rate(std::nullopt, M::kNone, std::nullopt);
    UseOneMethod(&local, &external);
    CHECK(*local.value == 0.6);
    CHECK(local.method == M::kRollingFinalQuarter);
    CHECK_FALSE(external.value.has_value());
  }
}

}  // namespace
}  // namespace kvbench::sampler
