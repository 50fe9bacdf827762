#pragma once

// The family-wise control of a diff's verdicts. Each metric × scenario of a diff is
// its own test at 95%; 48 of them (the demo: 8 metrics × 6 scenarios) let noise through in most
// A/A diffs (an A/A `kvctl diff` with three pooled baselines exited 9). Here a family of those
// tests is judged together: each test's one-sided p-values against the band's edges
// (band_p_values.h) are adjusted by Holm (holm.h), the "worse" hypotheses as one family and the
// "better" ones as another, each at alpha = 1 - confidence, so the chance that any regression of
// the family is noise is at most alpha, and likewise for improvements. A verdict stands only when
// its own interval gave it and Holm rejects its null; the interval shown stays the test's own.
// Pure.

#include <string>
#include <vector>

#include "controller/regression/bootstrap_diff.h"
#include "controller/regression/regression_metric.h"

namespace kvbench::regression {

// The most resamples ResamplesForFamily asks for (kvctl diff's --resamples allows as many): a
// bigger family than that resolves (e.g. 100 tests at alpha 0.001) is better split by the user.
inline constexpr int kMaxFamilyResamples = 100000;

struct TestFamily {
  std::vector<RegressionMetric> metrics;  // whose tests, over every scenario of the diff, it holds
  int scenarios = 0;
  int tests = 0;     // the metric × scenario tests with p-values (measured on both sides)
  double alpha = 0;  // the family-wise level: 1 - confidence
  int withheld = 0;  // regression or improvement verdicts of the tests alone that Holm did not keep
};

// Sets adjusted_p_worse and adjusted_p_better of each of `tests` that has p-values (the others
// are not tests and are left alone), and turns a regression whose adjusted_p_worse is above
// alpha (an improvement: adjusted_p_better) into inconclusive, with a note naming the family
// (`family`, e.g. "8 metrics × 6 scenarios") and its size. Fills `tests` and `withheld` of the
// result; the caller names its metrics and scenarios.
TestFamily ControlFamilyWise(const std::vector<MetricDiff*>& tests, const DiffOptions& options,
                             const std::string& family);

// The resamples a family of `tests` needs: the smallest p-value n resamples give is 1 / (n + 1),
// and Holm's first step asks for alpha / tests; at least twice that resolution, so a large change
// passes even when a stray resample or two fall inside the band. options.resamples when it is
// already enough; at most kMaxFamilyResamples.
int ResamplesForFamily(int tests, const DiffOptions& options);

}  // namespace kvbench::regression
