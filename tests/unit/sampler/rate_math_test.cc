#include "agent/sampler/rate_math.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

namespace kvbench::sampler {
namespace {

// Points at t0, t0 + step, ... with the given values.
std::vector<Point> Series(double t0, double step, const std::vector<double>& values) {
  std::vector<Point> points;
  for (std::size_t i = 0; i < values.size(); ++i) {
    points.push_back({t0 + static_cast<double>(i) * step, values[i]});
  }
  return points;
}

// value(t) = f(t) sampled every `step` seconds over [0, end].
template <typename F>
std::vector<Point> Sampled(double step, double end, F f) {
  std::vector<Point> points;
  for (double t = 0; t <= end; t += step) points.push_back({t, f(t)});
  return points;
}

void CheckOptional(const std::optional<double>& got, const std::optional<double>& expected) {
  REQUIRE(got.has_value() == expected.has_value());
  if (expected) CHECK(*got == Approx(*expected).margin(1e-12));
}

struct RateCase {
  const char* name;
  std::vector<Point> points;
  double t;
  double window;
  std::optional<double> expected;
};

// Notation in the comments: the window (t - w, t]; n samples in it; inc = the reset-corrected
// increase; s = last.t - first.t; avg = s / (n - 1), threshold 1.1 x avg; start = first.t - (t - w)
// and end = t - last.t after the threshold test (>= 1.1 x avg becomes avg / 2) and the zero clamp
// (start <= s x first.value / inc); rate = inc x (s + start + end) / s / w.
TEST_CASE("PromRate follows PromQL extrapolatedRate", "[sampler]") {
  const std::vector<RateCase> cases = {
      // (0, 300] holds t = 15..300 (20 samples; t = 0 is on the open edge): inc 285, s 285,
      // avg 15; start 15 < 16.5 kept; clamp 285 x 15 / 285 = 15; end 0.
      // rate = 285 x 300 / 285 / 300 = 1.
      {"steady 1/s, 15 s samples, 300 s window", Sampled(15, 600, [](double t) { return t; }), 300,
       300, 1.0},
      // (-255, 45]: all 4; inc 90, s 45; start 255 >= 16.5 -> 7.5; clamp 45 x 0 / 90 = 0 -> 0;
      // end 0. rate = 90 x 45 / 45 / 300 = 0.3: divided by the whole window, not the 45 s seen.
      {"counter born mid-window: zero clamp, whole-window divisor", Series(0, 15, {0, 30, 60, 90}),
       45, 300, 0.3},
      // 0, 15, 30, 45, reset, 5, 20, 35 at t = 0..90: inc = 35 - 0 + 45 (the pre-reset value)
      // = 80; start 210 -> 7.5 -> clamp 0; end 0. rate = 80 / 300.
      {"counter 0,15,30,45 reset to 5,20,35", Series(0, 15, {0, 15, 30, 45, 5, 20, 35}), 90, 300,
       80.0 / 300},
      // (40, 100]: 100, 115, 10, 25 at t = 45..90; inc = 25 - 100 + 115 = 40; s 45, avg 15;
      // start 5 (clamp 45 x 100 / 40 = 112.5 not shorter); end 10; both < 16.5.
      // rate = 40 x (45 + 5 + 10) / 45 / 60 = 8/9.
      {"reset inside window, extrapolated to both edges", Series(45, 15, {100, 115, 10, 25}), 100,
       60, 8.0 / 9},
      // (-20, 100]: all 3; inc 30, s 30, avg 15; start 20 >= 16.5 -> 7.5 (clamp 1000); end 70
      // -> 7.5. rate = 30 x 45 / 30 / 120 = 0.375.
      {"series covers part of the window: half an interval each side",
       Series(0, 15, {1000, 1015, 1030}), 100, 120, 0.375},
      // (-14, 46]: start 14, end 16, both < 16.5: full extrapolation.
      // rate = 30 x (30 + 14 + 16) / 30 / 60 = 1.
      {"edges within 1.1 x avg: extrapolated all the way", Series(0, 15, {1000, 1015, 1030}), 46,
       60, 1.0},
      // (-13.5, 46.5]: start 13.5 kept; end 16.5 = 1.1 x 15 is not "close" -> 7.5.
      // rate = 30 x (30 + 13.5 + 7.5) / 30 / 60 = 0.85.
      {"edge at exactly 1.1 x avg: half an interval", Series(0, 15, {1000, 1015, 1030}), 46.5, 60,
       0.85},
      // (0, 60]: 5, 20, 35 at t = 30..60; inc 30, s 30; start 30 -> 7.5; clamp 30 x 5 / 30 = 5.
      // rate = 30 x (30 + 5) / 30 / 60 = 35 / 60.
      {"zero clamp shorter than half an interval", Series(30, 15, {5, 20, 35}), 60, 60, 35.0 / 60},
      // As above with 12, 27, 42: start 30 -> 7.5; clamp 12 is longer, so 7.5 stays.
      // rate = 30 x 37.5 / 30 / 60 = 0.625. (Before Prometheus 2.51 the clamp came first and
      // gave start 12: 0.7.)
      {"zero clamp after the 1.1 x test (Prometheus >= 2.51)", Series(30, 15, {12, 27, 42}), 60, 60,
       0.625},
      // (0, 30]: the sample at t = 0 is excluded; (15, 20), (30, 30): inc 10, s 15; start 15
      // (clamp 15 x 20 / 10 = 30). rate = 10 x 30 / 15 / 30 = 2/3. (Prometheus 2.x, left-closed,
      // would take all three: 30 / 30 = 1.)
      {"sample at t - window excluded (left-open)", Series(0, 15, {0, 20, 30}), 30, 30, 2.0 / 3},
      // (0, 30]: (15, 15), (30, 30); the sample at 45 is after t. inc 15; start 15 (clamp 15).
      // rate = 15 x 30 / 15 / 30 = 1.
      {"samples after t ignored", Series(0, 15, {0, 15, 30, 1000}), 30, 30, 1.0},
      // inc 0: no clamp; rate 0 x ... = 0, a measured zero.
      {"flat counter: 0, not null", Series(0, 15, {7, 7, 7}), 30, 60, 0.0},
      {"no points: null", {}, 30, 300, std::nullopt},
      // (0, 15] holds only t = 15.
      {"one sample in window: null", Series(0, 15, {0, 15}), 15, 15, std::nullopt},
      {"window after the series: null", Series(0, 15, {0, 15, 30}), 100, 30, std::nullopt},
      {"zero window: null", Series(0, 15, {0, 15, 30}), 30, 0, std::nullopt},
      {"samples sharing one timestamp: null", {{10, 1}, {10, 2}}, 10, 30, std::nullopt},
  };
  for (const RateCase& c : cases) {
    INFO(c.name);
    CheckOptional(PromRate(c.points, c.t, c.window), c.expected);
    CheckOptional(PromRate(c.points, c.t, c.window, WindowEdge::kLeftOpen), c.expected);
    // Prometheus 2.x's left-closed window selects the same samples unless one sits on t - w.
    const bool sample_on_edge = std::any_of(
        c.points.begin(), c.points.end(), [&](const Point& p) { return p.t_s == c.t - c.window; });
    if (!sample_on_edge) {
      CheckOptional(PromRate(c.points, c.t, c.window, WindowEdge::kLeftClosed), c.expected);
    }
  }
}

TEST_CASE("PromRate with a left-closed window (Prometheus 2.x) keeps the sample at t - w",
          "[sampler]") {
  const std::vector<RateCase> cases = {
      // [0, 30]: all three; inc 30, s 30, avg 15; start 0; end 0. rate = 30 x 30 / 30 / 30 = 1
      // (left-open: 2/3, above).
      {"sample at t - window included", Series(0, 15, {0, 20, 30}), 30, 30, 1.0},
      // [0, 300] holds t = 0..300 (21 samples); inc 300, s 300; start 0. rate = 1 as left-open.
      {"steady 1/s, 15 s samples, 300 s window", Sampled(15, 600, [](double t) { return t; }), 300,
       300, 1.0},
      // [0, 15]: (0, 0), (15, 15): two samples where left-open (0, 15] has one.
      // inc 15, s 15; start 0; end 0. rate = 15 / 15 = 1.
      {"two samples only with the edge one", Series(0, 15, {0, 15}), 15, 15, 1.0},
  };
  for (const RateCase& c : cases) {
    INFO(c.name);
    CheckOptional(PromRate(c.points, c.t, c.window, WindowEdge::kLeftClosed), c.expected);
  }
}

TEST_CASE("WindowedRate steps back from the last point and skips steps without a rate",
          "[sampler]") {
  // v = 2t at t = 0..60, step 15, window 30 (two samples per window):
  // t=0: one sample, left out. t=15: (0,0),(15,30): inc 30, start 15 -> clamp 0 -> rate 30/30 = 1.
  // t=30..60: e.g. (15,30),(30,60): inc 30, start 15 (clamp 15 x 30/30 = 15) -> 60/30 = 2.
  const auto series = WindowedRate(Sampled(15, 60, [](double t) { return 2 * t; }), 15, 30);
  REQUIRE(series.size() == 4);
  const double expected_t[] = {15, 30, 45, 60};
  const double expected_rate[] = {1, 2, 2, 2};
  for (std::size_t i = 0; i < series.size(); ++i) {
    INFO("step " << i);
    CHECK(series[i].t_s == expected_t[i]);
    CHECK(series[i].value == Approx(expected_rate[i]));
  }
  CHECK(WindowedRate({}, 15, 300).empty());
  CHECK(WindowedRate({{0, 5}}, 15, 300).empty());
}

TEST_CASE("WindowedRate at the sampler's 15 s / 300 s ramps up over the first window",
          "[sampler]") {
  // 10/s from 0 at t = 0, sampled to t = 900. For t < 300 the window reaches back past t = 0, so
  // all samples 0..t are in it; the clamp stops extrapolation at the zero point (t = 0): rate =
  // 10t / 300. At t >= 300 the window is full: 10.
  const auto series = WindowedRate(Sampled(15, 900, [](double t) { return 10 * t; }), 15, 300);
  REQUIRE(series.size() == 60);  // t = 15..900
  for (const Point& p : series) {
    INFO("t=" << p.t_s);
    CHECK(p.value == Approx(p.t_s < 300 ? 10 * p.t_s / 300 : 10.0));
  }
  CHECK(*FinalQuarterMean(series, 0, 900) == Approx(10));
}

TEST_CASE("StepGrid is aligned to the end of the replay", "[sampler]") {
  struct Case {
    const char* name;
    double first, last, step;
    std::vector<double> expected;
  };
  const std::vector<Case> cases = {
      // The demo at 1 replica, scale 0.5 (issue #14): scrapes at 0, ~2, ~4 and the "after" one at
      // 4.7 s. Steps from the start (0, 2, 4) left the last 0.7 s in no window.
      {"4.7 s replay, 2 s period", 0, 4.7, 2, {0.7, 2.7, 4.7}},
      {"a whole number of steps: on the samples", 0, 60, 15, {0, 15, 30, 45, 60}},
      {"shorter than a step: the last scrape only", 0, 10, 15, {10}},
      {"one scrape", 3, 3, 15, {3}},
      {"last before first: none", 5, 4, 1, {}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::vector<double> steps = StepGrid(c.first, c.last, c.step);
    REQUIRE(steps.size() == c.expected.size());
    for (std::size_t i = 0; i < steps.size(); ++i) CHECK(steps[i] == Approx(c.expected[i]));
  }
}

TEST_CASE("FinalQuarterMean averages the final quarter of the replay by time", "[sampler]") {
  struct Case {
    const char* name;
    std::vector<Point> series;
    double start, end;
    std::optional<double> expected;
  };
  const std::vector<Case> cases = {
      {"empty", {}, 0, 100, std::nullopt},
      // Replay 0..100: the final quarter is t >= 75.
      {"evenly spread: t = 80, 100", Series(0, 20, {1, 2, 3, 4, 5, 6}), 0, 100, 5.5},
      // Six points, all after t = 75: every one counts (the last ceil(6/4) = 2 points would give
      // 5.5 and describe only the replay's last 20 s).
      {"bunched at the end: all six",
       {{76, 1}, {77, 2}, {78, 3}, {79, 4}, {80, 5}, {100, 6}},
       0,
       100,
       3.5},
      // Replay 20..100: t >= 80.
      {"replay starting at 20",
       {{76, 1}, {77, 2}, {78, 3}, {79, 4}, {80, 5}, {100, 6}},
       20,
       100,
       5.5},
      {"a point exactly at the boundary counts", {{60, 1}, {75, 3}}, 0, 100, 3.0},
      {"no point in the final quarter", {{10, 1}, {50, 2}}, 0, 100, std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CheckOptional(FinalQuarterMean(c.series, c.start, c.end), c.expected);
  }
}

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

TEST_CASE("ComputeHitRate: the series reaches the end of a short replay (issue #14)", "[sampler]") {
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

TEST_CASE("MeanBetween is Δsum / Δcount, null when missing or empty", "[sampler]") {
  using H = HistogramTotals;
  struct Case {
    const char* name;
    std::optional<H> before;
    std::optional<H> after;
    std::optional<double> expected;
  };
  const std::vector<Case> cases = {
      // Prefill seconds: (37.5 - 12.5) / (30 - 10) = 1.25 s.
      {"mean prefill time", H{12.5, 10}, H{37.5, 30}, 1.25},
      {"from zero", H{0, 0}, H{6, 4}, 1.5},
      {"no observations during the run: null", H{12.5, 10}, H{12.5, 10}, std::nullopt},
      {"count went down (server restarted): null", H{12.5, 10}, H{3, 2}, std::nullopt},
      {"histogram missing before: null", std::nullopt, H{6, 4}, std::nullopt},
      {"histogram missing after: null", H{0, 0}, std::nullopt, std::nullopt},
      {"histogram missing: null", std::nullopt, std::nullopt, std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CheckOptional(MeanBetween(c.before, c.after), c.expected);
  }
}

TEST_CASE("GaugeMean averages the samples", "[sampler]") {
  CheckOptional(GaugeMean(Series(0, 15, {0.2, 0.4, 0.9})), 0.5);  // 1.5 / 3
  CheckOptional(GaugeMean(Series(0, 15, {0.0, 0.0})), 0.0);
  CheckOptional(GaugeMean({}), std::nullopt);
}

TEST_CASE("CounterIncrease handles resets", "[sampler]") {
  struct Case {
    const char* name;
    std::vector<double> values;
    std::optional<double> expected;
  };
  const std::vector<Case> cases = {
      {"steady", {0, 15, 30, 45}, 45.0},
      // 100 -> 150 (+50), reset, 20 (+20), 50 (+30): 50 - 100 + 150 = 100.
      {"one reset", {100, 150, 20, 50}, 100.0},
      // 10 -> 5 (+5 after a reset), 5 -> 3 (+3), 3 -> 8 (+5): 8 - 10 + 10 + 5 = 13.
      {"two resets", {10, 5, 3, 8}, 13.0},
      {"flat: 0", {7, 7}, 0.0},
      {"one point: null", {7}, std::nullopt},
      {"no points: null", {}, std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CheckOptional(CounterIncrease(Series(0, 15, c.values)), c.expected);
  }
}

}  // namespace
}  // namespace kvbench::sampler
