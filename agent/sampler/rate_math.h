#pragma once

#include <optional>
#include <vector>

#include "absl/time/time.h"

namespace kvbench::sampler {

// One counter or gauge reading: seconds since the replay started, and the value (already summed
// over replicas where the metric is per replica).
struct Point {
  double t_s = 0;
  double value = 0;
};

// Which edge of the range selector's window holds a sample sitting exactly on it. A range
// selector `x[W]` evaluated at t selects the samples with timestamps (ms) in:
// - kLeftOpen, (t - W, t]: Prometheus >= 3.0 (docs/migration.md "Range selectors are now
//   left-open"). The default everywhere in kvbench.
// - kLeftClosed, [t - W, t]: Prometheus 2.x, e.g. the 2.42 that Debian 12 ships (promql/engine.go
//   matrixIterSlice keeps the points with T >= mint, mint = maxt - range). For cross-checks against
//   a real 2.x (tests/e2e/prometheus_crosscheck.sh) only.
// The two agree at every t where no sample lies exactly on t - W. At WindowedRate's steps (the
// first sample's t + k x step) t - W always lands on the first sample when W is a multiple of
// the step (at k = W / step), and on others only where they sit exactly on the step grid (to
// Prometheus's 1 ms resolution); at steps offset by half a period from samples one period apart,
// none does, and the modes give the same series.
enum class WindowEdge {
  kLeftOpen,    // Prometheus >= 3.0, default
  kLeftClosed,  // Prometheus 2.x
};

// Prometheus's rate() of a counter over the window (t - window, t] of `points` (sorted by t), or
// [t - window, t] with WindowEdge::kLeftClosed, exactly as PromQL's extrapolatedRate does it
// (promql/functions.go): counter resets add the pre-reset value back; the increase is
// extrapolated to the window's edges when the first/last sample lies within 1.1 x the average
// sample interval of them (else by half an interval), and never below zero at the start for
// counters. nullopt with fewer than 2 points in the window.
//
// The semantics in full (Prometheus >= 3.0 for the window, >= 2.51 for the zero clamp):
// - Window: left-open, right-closed by default. A sample whose t equals t_s - window_s is NOT in
//   the window (Prometheus 2.x included it, as kLeftClosed does; 3.0 made range selectors
//   left-open, docs/migration.md). With 15 s samples aligned to the evaluation time, a 300 s
//   window holds 20 samples, not 21 (21 with kLeftClosed).
// - Raw increase: last - first, plus the value before every drop (a drop is a counter reset: the
//   counter is assumed to restart from 0).
// - With first/last the window's first and last samples, sampled = last.t - first.t and
//   avg = sampled / (n - 1): to_start = first.t - (t_s - window_s), to_end = t_s - last.t. Each
//   that is >= 1.1 x avg is replaced by avg / 2 (the series is taken to start or end there).
// - Zero clamp: when the raw increase is > 0 and first.value >= 0, to_start is further limited
//   to sampled x first.value / increase, where the counter would extrapolate to 0 (applied after
//   the 1.1 x test, as since Prometheus 2.51; before that the order was reversed: 2.x < 2.51
//   clamps first, then tests the clamped to_start against 1.1 x avg). kLeftClosed does NOT
//   reproduce that older order. The orders differ only when avg / 2 < sampled x first.value /
//   increase < 1.1 x avg <= to_start: a window starting over 1.1 intervals before its first
//   sample (in the first `window_s` of a series, or after missed scrapes) whose first value is
//   small but not 0. A kvsim replica's counters are 0 at the "before" scrape: both orders give 0.
// - rate = increase x (sampled + to_start + to_end) / sampled / window_s: divided by the whole
//   window even when the series covers only part of it, as PromQL does.
// nullopt also when window_s <= 0 or the window's samples all share one timestamp.
std::optional<double> PromRate(const std::vector<Point>& points, double t_s, double window_s,
                               WindowEdge edge = WindowEdge::kLeftOpen);

// rate() evaluated at every step t = first point's t + k*step_s up to the last point's t.
// Steps where PromRate is nullopt are left out (the first step always is: one sample). Aborts
// when step_s <= 0 (a broken invariant: the step is a compile-time constant of the sampler).
std::vector<Point> WindowedRate(const std::vector<Point>& points, double step_s, double window_s,
                                WindowEdge edge = WindowEdge::kLeftOpen);

// Mean of the values in the final quarter of `series` (its last ceil(n/4) points: the plateau
// after warm-up, DESIGN.md "Sampling"); nullopt when empty.
std::optional<double> FinalQuarterMean(const std::vector<Point>& series);

// Hit rate = rate(hits) / rate(queries) at every step where both rates exist and queries > 0;
// the reported value is FinalQuarterMean of that series. When the run is shorter than one period
// (fewer than 2 points after the "before" one), the before/after diff: Δhits / Δqueries.
// nullopt when there were no queries, or either counter is absent.
//
// The steps are those of WindowedRate over `queries` (queries' first t + k*step_s up to its last
// t); both rates are PromRate at that t with `edge`. The before/after diff (CounterIncrease of
// each, resets handled) is also used when no step yields a ratio although both counters have
// >= 3 points (a run shorter than one step between its first and last point). `series` is empty
// then.
struct HitRate {
  std::vector<Point> series;  // for charts
  std::optional<double> value;
};
HitRate ComputeHitRate(const std::vector<Point>& hits, const std::vector<Point>& queries,
                       double step_s, double window_s, WindowEdge edge = WindowEdge::kLeftOpen);

// Mean of a histogram's observations between two scrapes: Δsum / Δcount. nullopt (never 0) when
// either scrape lacks the histogram or Δcount <= 0.
struct HistogramTotals {
  double sum = 0;
  double count = 0;
};
std::optional<double> MeanBetween(const std::optional<HistogramTotals>& before,
                                  const std::optional<HistogramTotals>& after);

// Mean of gauge samples (KV cache usage); nullopt when there are none.
std::optional<double> GaugeMean(const std::vector<Point>& points);

// The increase of a counter between the first and last point, resets handled; nullopt with
// fewer than 2 points.
std::optional<double> CounterIncrease(const std::vector<Point>& points);

}  // namespace kvbench::sampler
