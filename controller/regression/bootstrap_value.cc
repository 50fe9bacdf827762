#include "controller/regression/bootstrap_value.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/stats/percentiles.h"
#include "controller/regression/run_resample.h"

namespace kvbench::regression {

std::vector<MetricInterval> BootstrapValues(const std::vector<RunSample>& runs,
                                            const DiffOptions& options, uint64_t stream) {
  const MetricValues values = ComputeMetrics(runs);
  std::vector<MetricInterval> intervals;
  for (const RegressionMetricInfo& info : AllRegressionMetrics()) {
    MetricInterval& interval = intervals.emplace_back();
    interval.metric = info.metric;
    interval.value = values[static_cast<int>(info.metric)];
  }
  const int users = UserCount(runs);
  if (users < kMinUsersToResample) {
    for (MetricInterval& interval : intervals) {
      interval.note = absl::StrCat("too few virtual users to resample (", users, "; at least ",
                                   kMinUsersToResample, ")");
    }
    return intervals;
  }
  std::mt19937_64 random(options.seed ^ stream);
  std::vector<std::vector<double>> drawn(intervals.size());
  for (int r = 0; r < options.resamples; ++r) {
    const MetricValues resampled = Resample(runs, random);
    for (size_t m = 0; m < drawn.size(); ++m) {
      if (resampled[m]) drawn[m].push_back(*resampled[m]);
    }
  }
  const double tail = (1.0 - options.confidence) / 2.0 * 100.0;
  for (size_t m = 0; m < intervals.size(); ++m) {
    MetricInterval& interval = intervals[m];
    if (!interval.value) {
      interval.note = "not measured";
      continue;
    }
    if (static_cast<double>(drawn[m].size()) < kMinDefinedShare * options.resamples) {
      interval.note = "too few resamples had a value";
      continue;
    }
    std::sort(drawn[m].begin(), drawn[m].end());
    interval.low = stats::PercentileOfSorted(drawn[m], tail);
    interval.high = stats::PercentileOfSorted(drawn[m], 100.0 - tail);
  }
  return intervals;
}

}  // namespace kvbench::regression
