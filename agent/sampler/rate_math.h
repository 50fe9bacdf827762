#pragma once

#include <cstddef>
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
// The two agree at every t where no sample lies exactly on t - W. At StepGrid's steps (the last
// sample's t - k x step) t - W lands on a sample only where one sits exactly on the step grid
// (to Prometheus's 1 ms resolution: the first sample when W is a multiple of the step and the
// replay a whole number of steps long); at steps offset by half a period from samples one
// period apart, none does, and the modes give the same series.
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
// - Edges: a sample within 1e-12 (relative to t_s and window_s) of t_s - window_s or t_s is ON
//   that edge: the sampler's times are whole ms (sampler.h), and t_s - window_s in seconds misses
//   a ms-exact sample by an ulp for ~15% of steps.
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

// The evaluation steps of a replay's rate series: t = last_t - k x step_s for k = 0, 1, ... while
// t >= first_t, ascending. Aligned to the end: the last step is the "after" scrape, so every
// scrape is in some step's window (steps from first_t would stop up to a period short of the
// end and leave the last scrapes out). Empty when last_t < first_t. At most max_steps
// (+1 for float rounding): a finer step is widened to (last_t - first_t) / max_steps. Aborts when
// step_s <= 0 or max_steps is 0 (broken invariants: the step is the sampler's period).
std::vector<double> StepGrid(double first_t, double last_t, double step_s, size_t max_steps);

// The bound on the steps of a series of `samples` scrapes: the rate loop costs O(samples),
// whatever the period (a period of 1e-9 s must not spin a core).
inline constexpr size_t kStepsPerSample = 4;
size_t StepsFor(size_t samples);

// rate() of one series at every step of StepGrid(its first t, its last t, step_s); steps where
// PromRate is nullopt are left out (the first step can be: one sample in its window).
std::vector<Point> WindowedRate(const std::vector<Point>& points, double step_s, double window_s,
                                WindowEdge edge = WindowEdge::kLeftOpen);

// PromQL's sum(rate(x[window])) at t over several series (one per replica): the sum of the
// series' PromRate at t, leaving out a series without one there (a replica not yet or no longer
// scraped: a dead replica's samples stay in the windows until they age out, because a range
// selector skips the staleness markers a failed scrape writes — prometheus/prometheus
// promql/testdata/staleness.test@1164e11f36bf78b6faea47c84d7191f2f2abaab4, "Range vector ignores
// stale sample"). nullopt when no series has a rate at t (sum() of an empty vector is empty).
std::optional<double> SummedRate(const std::vector<std::vector<Point>>& series, double t_s,
                                 double window_s, WindowEdge edge = WindowEdge::kLeftOpen);

// Mean of the points of `series` with t >= start_s + 0.75 x (end_s - start_s): the final quarter
// of the replay by time (the plateau after warm-up, DESIGN.md "Sampling"), not the last quarter
// of the points. nullopt when no point lies there.
std::optional<double> FinalQuarterMean(const std::vector<Point>& series, double start_s,
                                       double end_s);

// A rate series with fewer ratio steps than this has no plateau to average: the hit rate is the
// before/after diff instead (DESIGN.md's short-run fallback). 8 steps make the final quarter
// hold two of them; at the default 15 s period that is a replay of 105 s or more.
inline constexpr std::size_t kMinStepsForPlateau = 8;

enum class HitRateMethod {
  kNone,                 // no value
  kRollingFinalQuarter,  // FinalQuarterMean of the ratio series
  kBeforeAfter,          // sum of Δhits / sum of Δqueries between the first and last scrapes
};

// One replica's prefix-cache counters (hits and queries), t since the replay started.
struct ReplicaCounters {
  std::vector<Point> hits;
  std::vector<Point> queries;
};

// The hit rate across replicas as PromQL computes it:
//   sum(rate(hits[W])) / sum(rate(queries[W]))
// rate per replica, then summed, then divided (summing the counters first would read a replica
// that died mid-run as a counter reset of the whole fleet). The steps are StepGrid
// from the earliest to the latest scrape of any replica; a step is in `series` when both sums
// exist and the queries' is > 0.
// `value`: with >= kMinStepsForPlateau steps in `series`, the mean of its final quarter
// (FinalQuarterMean from the first to the last scrape): kRollingFinalQuarter; otherwise (or when
// the final quarter holds no step) the before/after diff, per replica and summed:
// sum(CounterIncrease(hits)) / sum(CounterIncrease(queries)), resets handled: kBeforeAfter.
// nullopt (kNone) when there were no queries or a counter is absent on every replica.
struct HitRate {
  std::vector<Point> series;  // for charts
  std::optional<double> value;
  HitRateMethod method = HitRateMethod::kNone;
  std::optional<double> before_after;  // the diff, whichever method `value` used
};
HitRate ComputeHitRate(const std::vector<ReplicaCounters>& replicas, double step_s, double window_s,
                       WindowEdge edge = WindowEdge::kLeftOpen);
// One replica.
HitRate ComputeHitRate(const std::vector<Point>& hits, const std::vector<Point>& queries,
                       double step_s, double window_s, WindowEdge edge = WindowEdge::kLeftOpen);

// The result has one hit_rate_method for its local and external hit rates: when the two came
// out with different methods (one ratio series too short or empty at the end), both use their
// before/after diff. Rates without a value are left alone.
void UseOneMethod(HitRate* local, HitRate* external);

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
