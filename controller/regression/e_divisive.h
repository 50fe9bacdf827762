#pragma once

// Change points in a metric's history: E-Divisive with means (Matteson & James, "A
// Nonparametric Approach for Multiple Change Point Analysis of Multivariate Data", JASA 2014),
// the method behind Apache Otava (formerly Hunter) and MongoDB's performance CI. Hierarchical:
// the split maximising the energy statistic Q̂ over every current segment is tested by permuting
// the observations within each segment; a significant split is kept and the search goes on, the
// first insignificant one ends it. Distances |x - y| (alpha = 1). Kept change points must also
// move the mean by at least a minimum magnitude (Otava's filter: with nightly runs, a significant
// but tiny shift is not worth an alert), and the median as much (one wild run at the end of a
// segment drags its mean, not its median: seen in e2e.regression_alerts, where the first run of
// a new level placed a change point three runs early). Deterministic given the seed. Pure.

#include <cstdint>
#include <vector>

namespace kvbench::regression {

// The false-alarm probability of each accepted split (the permutation test's level).
inline constexpr double kDefaultChangePointAlpha = 0.01;
// 499 permutations resolve p-values down to 0.002, enough for alpha = 0.01.
inline constexpr int kDefaultPermutations = 499;
// A change point must move the mean and the median of its metric by at least this much (%).
inline constexpr double kDefaultMinMagnitudePct = 5.0;
// Runs on each side of a split: one odd night is not a new level.
inline constexpr int kDefaultMinSegment = 3;
inline constexpr uint64_t kDefaultChangePointSeed = 1;

struct ChangePointOptions {
  double alpha = kDefaultChangePointAlpha;
  int permutations = kDefaultPermutations;
  double min_magnitude_pct = kDefaultMinMagnitudePct;
  int min_segment = kDefaultMinSegment;  // >= 2
  uint64_t seed = kDefaultChangePointSeed;
};

struct ChangePoint {
  int index = 0;  // the first observation of the new level
  double p_value = 1;
  double mean_before = 0;  // of the segment ending at index (between neighbouring change points)
  double mean_after = 0;   // of the segment starting at index
  // (mean_after / mean_before - 1) x 100; 0 when mean_before is 0.
  double magnitude_pct = 0;
};

// The change points of `series` (in order of index), each with its permutation p-value. Empty for
// a series shorter than 2 x min_segment.
std::vector<ChangePoint> FindChangePoints(const std::vector<double>& series,
                                          const ChangePointOptions& options = {});

}  // namespace kvbench::regression
