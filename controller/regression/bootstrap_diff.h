#pragma once

// The change of every regression metric between two samples of runs, with a confidence interval
// from a bootstrap that resamples virtual users. Requests of one user are correlated
// (one growing context, one prefix-cache history): resampling requests would make the interval
// too narrow, so each resample draws users with replacement, as many as the run has.
//
// Users are not the only thing that varies: users of one run share a server, and what moves a
// whole run (a preemption cascade at high concurrency, machine load) moves them together —
// measured on the simulator, A/A runs' TTFT p95 at concurrency 16 differ by ~25% while a user
// bootstrap of one run gives intervals of ±10% (tests/bench/regression_campaign.sh). So a side
// that pools several runs (a baseline segment) is resampled in two stages, runs then their users
// (the cluster bootstrap), and a side of one run is given the run-to-run spread of the same
// scenario's earlier runs where there are some (`spread`): in each resample, the deviation of a
// randomly drawn earlier run from their mean is applied to its value (borrowing the spread as a
// random-effects model would; it also counts their users' spread again, so it errs wide). Without
// earlier runs, one run against one run can only show the users' spread (JobDiff::caveat says
// so). Percentile intervals (Efron), and from the same resamples one-sided p-values against the
// band's edges for the family-wise control of a diff. Deterministic given the seed.
// Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "controller/regression/diff_verdict.h"
#include "controller/regression/regression_metric.h"
#include "controller/regression/run_sample.h"

namespace kvbench::regression {

// Practical-significance band: a change inside ±3% (percentage points for a percentage) does not
// matter for a serving decision.
inline constexpr double kDefaultBandPct = 3.0;
// Resamples: the 2.5th and 97.5th percentiles of 2,000 are stable to a few tenths of a percent.
inline constexpr int kDefaultResamples = 2000;
inline constexpr double kDefaultConfidence = 0.95;
inline constexpr uint64_t kDefaultDiffSeed = 1;
// Fewer users than this on a side and a resample says little about the spread: not measured.
inline constexpr int kMinUsersToResample = 4;

struct DiffOptions {
  double band = kDefaultBandPct;
  int resamples = kDefaultResamples;
  double confidence = kDefaultConfidence;
  uint64_t seed = kDefaultDiffSeed;
};

struct MetricDiff {
  RegressionMetric metric = RegressionMetric::kTtftP50;
  std::optional<double> before;  // the metric over side A (shown unit ÷ shown_scale)
  std::optional<double> after;
  std::optional<double> change;  // % or percentage points (InfoOf(metric).change_kind)
  std::optional<double> low;     // the interval, same unit as change
  std::optional<double> high;
  // One-sided bootstrap p-values against the band's edges (band_p_values.h), set with the
  // interval: the tests a family-wise control (family_wise.h) adjusts.
  std::optional<double> p_worse;
  std::optional<double> p_better;
  // The same after Holm over the diff's family of tests: set by DiffJobs, not by BootstrapDiff.
  std::optional<double> adjusted_p_worse;
  std::optional<double> adjusted_p_better;
  // This test's own: its interval and the band. DiffJobs may then withhold it (kMinRunsForVerdict,
  // the family-wise control), saying so in `note`.
  DiffVerdict verdict = DiffVerdict::kNotMeasured;
  std::string note;  // why it is not measured, or why a verdict was withheld
};

// `change` from `before` to `after`: relative % (nullopt when before <= 0) or percentage points.
std::optional<double> ChangeBetween(ChangeKind kind, std::optional<double> before,
                                    std::optional<double> after);

// How whole runs of one scenario vary: the metrics of earlier runs of it (ComputeMetrics or
// MetricsOfResult), one entry per run. Fewer than two runs with a metric say nothing of it.
using RunSpread = std::vector<MetricValues>;

// Every metric (AllRegressionMetrics order), `before` the runs of side A pooled, `after` side B's.
// `stream` separates the random streams of independent diffs (e.g. a hash of the scenario key) so
// a scenario's result does not depend on which others were diffed. `spread` is applied to each
// side of one run.
std::vector<MetricDiff> BootstrapDiff(const std::vector<RunSample>& before,
                                      const std::vector<RunSample>& after,
                                      const DiffOptions& options, uint64_t stream = 0,
                                      const RunSpread& spread = {});

// FNV-1a of `text`: a stable stream for BootstrapDiff.
uint64_t StableHash(const std::string& text);

}  // namespace kvbench::regression
