#pragma once

#include <optional>
#include <vector>

namespace kvbench::stats {

// The one percentile definition kvbench uses everywhere: linear interpolation between the closest
// ranks (numpy's default method "linear", Hyndman & Fan type 7). Sort the n values ascending as
// x[0..n-1]; the p-th percentile lies at rank h = (n - 1) * p / 100 and is
//   x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)]).
// So p = 0 is the minimum, p = 100 the maximum, p = 50 the usual median, and n = 1 gives that value
// for every p. The input need not be sorted. `p` must lie in [0, 100] (checked: aborts otherwise).
// Empty input gives nullopt ("not measured"), never 0.
std::optional<double> Percentile(std::vector<double> values, double p);

// The same definition over values already sorted ascending (not checked): for callers that take
// several percentiles of one sample, sorting once.
std::optional<double> PercentileOfSorted(const std::vector<double>& sorted, double p);

// Arithmetic mean; nullopt for empty input.
std::optional<double> Mean(const std::vector<double>& values);

}  // namespace kvbench::stats
