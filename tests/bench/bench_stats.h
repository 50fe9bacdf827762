#pragma once

#include <algorithm>
#include <cstdio>
#include <vector>

namespace kvbench::bench {

// Nearest-rank percentile of `values` (sorted in place); 0 for an empty set.
inline double Percentile(std::vector<double>& values, double pct) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(pct / 100.0 * values.size() + 0.999999);
  return values[std::min(values.size(), std::max<size_t>(rank, 1)) - 1];
}

}  // namespace kvbench::bench
