#include "controller/regression/holm.h"

#include <algorithm>
#include <numeric>

namespace kvbench::regression {
namespace {

// Indices of `p_values` by ascending p (stable: ties keep their order, so the result does not
// depend on the sort's implementation).
std::vector<size_t> AscendingOrder(const std::vector<double>& p_values) {
  std::vector<size_t> order(p_values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&p_values](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  return order;
}

}  // namespace

std::vector<double> HolmAdjust(const std::vector<double>& p_values) {
  const std::vector<size_t> order = AscendingOrder(p_values);
  const double m = static_cast<double>(p_values.size());
  std::vector<double> adjusted(p_values.size());
  double running_max = 0;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const double scaled = std::min(1.0, (m - static_cast<double>(rank)) * p_values[order[rank]]);
    // The maximum keeps adjusted p-values in the order of the raw ones: a hypothesis is only
    // rejected when every smaller p-value's hypothesis is too (the step-down's stopping rule).
    running_max = std::max(running_max, scaled);
    adjusted[order[rank]] = running_max;
  }
  return adjusted;
}

std::vector<bool> HolmRejects(const std::vector<double>& p_values, double alpha) {
  const std::vector<size_t> order = AscendingOrder(p_values);
  const double m = static_cast<double>(p_values.size());
  std::vector<bool> rejected(p_values.size(), false);
  for (size_t rank = 0; rank < order.size(); ++rank) {
    if (p_values[order[rank]] > alpha / (m - static_cast<double>(rank))) break;
    rejected[order[rank]] = true;
  }
  return rejected;
}

}  // namespace kvbench::regression
