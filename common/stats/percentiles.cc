#include "common/stats/percentiles.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <numeric>

namespace kvbench::stats {

std::optional<double> Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return PercentileOfSorted(values, p);
}

std::optional<double> PercentileOfSorted(const std::vector<double>& values, double p) {
  if (!(p >= 0.0 && p <= 100.0)) {
    std::fprintf(stderr, "Percentile: p=%g outside [0, 100]\n", p);
    std::abort();
  }
  if (values.empty()) return std::nullopt;
  const double rank = static_cast<double>(values.size() - 1) * p / 100.0;
  const double lower_rank = std::floor(rank);
  const auto lower = static_cast<std::size_t>(lower_rank);
  if (lower + 1 >= values.size()) return values.back();
  const double fraction = rank - lower_rank;
  return values[lower] + fraction * (values[lower + 1] - values[lower]);
}

std::optional<double> Mean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

}  // namespace kvbench::stats
