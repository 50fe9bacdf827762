#include "controller/regression/bootstrap_diff.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "common/stats/percentiles.h"
#include "controller/regression/band_p_values.h"
#include "controller/regression/run_resample.h"

namespace kvbench::regression {
namespace {

// Each earlier run's deviation from their mean, per metric: relative for amounts (0.1 = 10% above),
// a difference for shares; empty for a metric fewer than two runs have. Deviations from the mean
// of the n runs they come from are too small by sqrt((n - 1) / n) (the mean took part of each
// one's spread); they are scaled back, as the modified residuals of Davison & Hinkley (1997,
// "Bootstrap Methods and their Application", eq. 6.9, the leverage of a mean being 1 / n). With
// three runs that is x1.22: without it, a fourth A/A run fell outside too narrow an interval
// in 2 of 20 pooled diffs.
std::array<std::vector<double>, kRegressionMetricCount> Deviations(const RunSpread& spread) {
  std::array<std::vector<double>, kRegressionMetricCount> deviations;
  for (int m = 0; m < kRegressionMetricCount; ++m) {
    std::vector<double> values;
    for (const MetricValues& run : spread) {
      if (run[m]) values.push_back(*run[m]);
    }
    if (values.size() < 2) continue;
    double mean = 0;
    for (double value : values) mean += value / static_cast<double>(values.size());
    const bool relative = AllRegressionMetrics()[m].change_kind == ChangeKind::kRelativePct;
    if (relative && mean <= 0) continue;
    const double n = static_cast<double>(values.size());
    const double unshrink = std::sqrt(n / (n - 1));
    for (double value : values) {
      deviations[m].push_back(unshrink * (relative ? value / mean - 1 : value - mean));
    }
  }
  return deviations;
}

// A side of one run moved as a whole by one earlier run's deviations (the same run for every
// metric: they move together).
void MoveLikeARun(const std::array<std::vector<double>, kRegressionMetricCount>& deviations,
                  std::mt19937_64& random, MetricValues* values) {
  const double unit = static_cast<double>(random() >> 11) * 0x1.0p-53;
  for (int m = 0; m < kRegressionMetricCount; ++m) {
    const std::vector<double>& of_metric = deviations[m];
    if (of_metric.empty() || !(*values)[m]) continue;
    const double d = of_metric[static_cast<size_t>(unit * static_cast<double>(of_metric.size()))];
    const bool relative = AllRegressionMetrics()[m].change_kind == ChangeKind::kRelativePct;
    (*values)[m] = relative ? *(*values)[m] * (1 + d) : *(*values)[m] + d;
  }
}

}  // namespace

std::optional<double> ChangeBetween(ChangeKind kind, std::optional<double> before,
                                    std::optional<double> after) {
  if (!before || !after) return std::nullopt;
  if (kind == ChangeKind::kPercentagePoints) return *after - *before;
  if (*before <= 0) return std::nullopt;
  return (*after / *before - 1.0) * 100.0;
}

uint64_t StableHash(const std::string& text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::vector<MetricDiff> BootstrapDiff(const std::vector<RunSample>& before,
                                      const std::vector<RunSample>& after,
                                      const DiffOptions& options, uint64_t stream,
                                      const RunSpread& spread) {
  const MetricValues before_values = ComputeMetrics(before);
  const MetricValues after_values = ComputeMetrics(after);
  std::vector<MetricDiff> diffs;
  for (const RegressionMetricInfo& info : AllRegressionMetrics()) {
    MetricDiff diff;
    diff.metric = info.metric;
    diff.before = before_values[static_cast<int>(info.metric)];
    diff.after = after_values[static_cast<int>(info.metric)];
    diff.change = ChangeBetween(info.change_kind, diff.before, diff.after);
    diffs.push_back(diff);
  }
  const int before_users = UserCount(before);
  const int after_users = UserCount(after);
  if (before_users < kMinUsersToResample || after_users < kMinUsersToResample) {
    for (MetricDiff& diff : diffs) {
      diff.note = absl::StrCat("too few virtual users to resample (", before_users, " before, ",
                               after_users, " after; at least ", kMinUsersToResample, " each)");
    }
    return diffs;
  }

  std::mt19937_64 random(options.seed ^ stream);
  const std::array<std::vector<double>, kRegressionMetricCount> deviations = Deviations(spread);
  std::vector<std::vector<double>> changes(diffs.size());
  for (int r = 0; r < options.resamples; ++r) {
    MetricValues resampled_before = Resample(before, random);
    MetricValues resampled_after = Resample(after, random);
    if (before.size() == 1) MoveLikeARun(deviations, random, &resampled_before);
    if (after.size() == 1) MoveLikeARun(deviations, random, &resampled_after);
    for (size_t m = 0; m < diffs.size(); ++m) {
      const std::optional<double> change = ChangeBetween(AllRegressionMetrics()[m].change_kind,
                                                         resampled_before[m], resampled_after[m]);
      if (change) changes[m].push_back(*change);
    }
  }
  const double tail = (1.0 - options.confidence) / 2.0 * 100.0;
  for (size_t m = 0; m < diffs.size(); ++m) {
    MetricDiff& diff = diffs[m];
    if (!diff.change) {
      diff.note = diff.before && diff.after ? "no baseline value to change from"
                                            : "not measured on both sides";
      continue;
    }
    if (static_cast<double>(changes[m].size()) < kMinDefinedShare * options.resamples) {
      diff.note = "too few resamples had a value";
      continue;
    }
    std::sort(changes[m].begin(), changes[m].end());
    diff.low = stats::PercentileOfSorted(changes[m], tail);
    diff.high = stats::PercentileOfSorted(changes[m], 100.0 - tail);
    const BandPValues p =
        PValuesAgainstBand(changes[m], options.band, AllRegressionMetrics()[m].higher_is_better);
    diff.p_worse = p.worse;
    diff.p_better = p.better;
    diff.verdict = JudgeChange(*diff.change, *diff.low, *diff.high, options.band,
                               AllRegressionMetrics()[m].higher_is_better);
  }
  return diffs;
}

}  // namespace kvbench::regression
