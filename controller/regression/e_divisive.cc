#include "controller/regression/e_divisive.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace kvbench::regression {
namespace {

struct Split {
  int at = -1;  // first index of the right part; -1 when the segment cannot be split
  double q = -1;
};

// The best split of values[begin, end) as Matteson & James search it: X = [begin, tau) against
// Y = [tau, kappa) for every kappa <= end (a level that comes and goes again is found too), by
// Q̂ = m k / (m + k) Ê with
// Ê = 2/(m k) Σ|X-Y| - 2/(m(m-1)) Σ_{i<j}|Xi-Xj| - 2/(k(k-1)) Σ_{i<j}|Yi-Yj|.
// Row prefix sums of the distances make each (tau, kappa) O(1): O(n²) per segment.
Split BestSplit(const std::vector<double>& values, int begin, int end, int min_segment) {
  Split best;
  const int n = end - begin;
  if (n < 2 * min_segment) return best;
  const auto width = static_cast<size_t>(n + 1);
  // prefix[i * width + j] = Σ_{l < j} |x_i - x_l| (local indices).
  std::vector<double> prefix(static_cast<size_t>(n) * width, 0.0);
  for (int i = 0; i < n; ++i) {
    double* row = &prefix[static_cast<size_t>(i) * width];
    for (int j = 0; j < n; ++j)
      row[j + 1] = row[j] + std::fabs(values[begin + i] - values[begin + j]);
  }
  auto sum_to = [&](int point, int upto) {
    return prefix[static_cast<size_t>(point) * width + upto];
  };
  double within_x = 0;
  for (int tau = 1; tau < n; ++tau) {
    within_x += sum_to(tau - 1, tau - 1);
    const int m = tau;
    if (m < min_segment) continue;
    double between = 0;
    double within_y = 0;
    for (int kappa = tau + 1; kappa <= n; ++kappa) {
      const int added = kappa - 1;
      between += sum_to(added, tau);
      within_y += sum_to(added, added) - sum_to(added, tau);
      const int k = kappa - tau;
      if (k < min_segment) continue;
      const double e_hat = 2.0 * between / (static_cast<double>(m) * k) -
                           2.0 * within_x / (static_cast<double>(m) * (m - 1)) -
                           2.0 * within_y / (static_cast<double>(k) * (k - 1));
      const double q = static_cast<double>(m) * k / (m + k) * e_hat;
      if (q > best.q) best = {begin + tau, q};
    }
  }
  return best;
}

// The best split over every segment (bounds[s], bounds[s + 1]); *segment names it.
Split BestOverSegments(const std::vector<double>& values, const std::vector<int>& bounds,
                       int min_segment, size_t* segment) {
  Split best;
  for (size_t s = 0; s + 1 < bounds.size(); ++s) {
    const Split split = BestSplit(values, bounds[s], bounds[s + 1], min_segment);
    if (split.at >= 0 && split.q > best.q) {
      best = split;
      if (segment != nullptr) *segment = s;
    }
  }
  return best;
}

// Like bootstrap_diff.cc: the same shuffle on every platform (std::shuffle's use of the engine is
// left to the library).
void Shuffle(std::vector<double>::iterator first, std::vector<double>::iterator last,
             std::mt19937_64& random) {
  for (auto n = last - first; n > 1; --n) {
    const double unit = static_cast<double>(random() >> 11) * 0x1.0p-53;
    std::swap(first[n - 1], first[static_cast<long>(unit * static_cast<double>(n))]);
  }
}

double MeanOf(const std::vector<double>& values, int begin, int end) {
  return std::accumulate(values.begin() + begin, values.begin() + end, 0.0) / (end - begin);
}

double MedianOf(const std::vector<double>& values, int begin, int end) {
  std::vector<double> segment(values.begin() + begin, values.begin() + end);
  std::sort(segment.begin(), segment.end());
  const size_t n = segment.size();
  return n % 2 == 1 ? segment[n / 2] : (segment[n / 2 - 1] + segment[n / 2]) / 2;
}

double RelativePct(double before, double after) {
  return before == 0 ? 0 : (after / before - 1.0) * 100.0;
}

}  // namespace

std::vector<ChangePoint> FindChangePoints(const std::vector<double>& series,
                                          const ChangePointOptions& options) {
  const int min_segment = std::max(2, options.min_segment);
  std::vector<int> bounds = {0, static_cast<int>(series.size())};
  std::vector<double> p_values;  // by accepted change point, in acceptance order
  std::vector<int> accepted;
  std::mt19937_64 random(options.seed);
  while (true) {
    size_t segment = 0;
    const Split observed = BestOverSegments(series, bounds, min_segment, &segment);
    if (observed.at < 0) break;
    int as_extreme = 0;
    std::vector<double> permuted = series;
    for (int r = 0; r < options.permutations; ++r) {
      for (size_t s = 0; s + 1 < bounds.size(); ++s) {
        Shuffle(permuted.begin() + bounds[s], permuted.begin() + bounds[s + 1], random);
      }
      if (BestOverSegments(permuted, bounds, min_segment, nullptr).q >= observed.q) ++as_extreme;
    }
    const double p_value = (as_extreme + 1.0) / (options.permutations + 1.0);
    if (p_value > options.alpha) break;
    accepted.push_back(observed.at);
    p_values.push_back(p_value);
    bounds.insert(bounds.begin() + static_cast<long>(segment) + 1, observed.at);
  }

  std::vector<ChangePoint> points;
  for (size_t b = 1; b + 1 < bounds.size(); ++b) {
    ChangePoint point;
    point.index = bounds[b];
    const auto found = std::find(accepted.begin(), accepted.end(), point.index);
    point.p_value = p_values[static_cast<size_t>(found - accepted.begin())];
    point.mean_before = MeanOf(series, bounds[b - 1], bounds[b]);
    point.mean_after = MeanOf(series, bounds[b], bounds[b + 1]);
    point.magnitude_pct = RelativePct(point.mean_before, point.mean_after);
    // The medians must move as much: one wild run at the end of a history (a noisy night, or
    // the first of a new level) drags a segment's mean, not its median, and must not place a
    // change point where there is none.
    const double median_pct = RelativePct(MedianOf(series, bounds[b - 1], bounds[b]),
                                          MedianOf(series, bounds[b], bounds[b + 1]));
    if (std::fabs(point.magnitude_pct) >= options.min_magnitude_pct &&
        std::fabs(median_pct) >= options.min_magnitude_pct) {
      points.push_back(point);
    }
  }
  return points;
}

}  // namespace kvbench::regression
