#include "agent/sampler/rate_math.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "tests/unit/agent/sampler/rate_math_test_helpers.h"

namespace kvbench::sampler {
namespace {

using testing::CheckOptional;
using testing::Sampled;
using testing::Series;

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

TEST_CASE("PromRate: a ms-exact sample on the window's edge is on it, whatever the float noise",
          "[sampler]") {
  // The sampler's times are whole ms (sampler.h ToScrapeResolution). As doubles, 4.001 - 4 is
  // 0.001000000000000334 (above the sample at 0.001) and 4.002 - 4 is 0.0019999999999997797
  // (below the one at 0.002): compared bare, left-closed would drop the first edge sample and
  // left-open keep the second, unlike Prometheus on the same ms timestamps.
  for (const double t0 : {0.001, 0.002}) {
    INFO("samples from t0 = " << t0);
    const std::vector<Point> points = {
        {t0, 0}, {t0 + 1, 10}, {t0 + 2, 11}, {t0 + 3, 12}, {t0 + 4, 13}};
    const double t = t0 + 4;
    // [t - 4, t]: all five; inc 13, s 4, start 0, end 0. rate = 13 x 4 / 4 / 4 = 3.25.
    CheckOptional(PromRate(points, t, 4, WindowEdge::kLeftClosed), 3.25);
    // (t - 4, t]: the last four; inc 3, s 3, avg 1; start 1 (< 1.1; the zero clamp 3 x 10 / 3 is
    // above it); end 0. rate = 3 x 4 / 3 / 4 = 1.
    CheckOptional(PromRate(points, t, 4, WindowEdge::kLeftOpen), 1.0);
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
      // The demo at 1 replica, scale 0.5: scrapes at 0, ~2, ~4 and the "after" one at
      // 4.7 s. Steps from the start (0, 2, 4) left the last 0.7 s in no window.
      {"4.7 s replay, 2 s period", 0, 4.7, 2, {0.7, 2.7, 4.7}},
      {"a whole number of steps: on the samples", 0, 60, 15, {0, 15, 30, 45, 60}},
      {"shorter than a step: the last scrape only", 0, 10, 15, {10}},
      {"one scrape", 3, 3, 15, {3}},
      {"last before first: none", 5, 4, 1, {}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::vector<double> steps = StepGrid(c.first, c.last, c.step, 1000);
    REQUIRE(steps.size() == c.expected.size());
    for (std::size_t i = 0; i < steps.size(); ++i) CHECK(steps[i] == Approx(c.expected[i]));
  }
}

TEST_CASE("StepGrid never makes more than max_steps steps, whatever the step", "[sampler]") {
  // sampling.period_s 1e-9 over a 74 s replay would ask for 7.4e10 steps and spin an
  // agent core. The step widens to span / max_steps, still aligned to the end.
  const std::vector<double> steps = StepGrid(0, 74, 1e-9, StepsFor(20));
  REQUIRE(steps.size() >= 80);
  REQUIRE(steps.size() <= 81);
  CHECK(steps.back() == Approx(74));
  CHECK(steps[steps.size() - 2] == Approx(74 - 74.0 / 80));
  // A step within the bound is kept as it is.
  CHECK(StepGrid(0, 60, 15, StepsFor(5)).size() == 5);
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
