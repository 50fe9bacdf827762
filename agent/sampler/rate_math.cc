#include "agent/sampler/rate_math.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/log/logging.h"

namespace kvbench::sampler {
namespace {

// "Close enough" to a window edge to extrapolate all the way to it: up to 10% more than the
// average interval between the window's samples (promql/functions.go).
constexpr double kExtrapolationThreshold = 1.1;

// The increase over `points`, adding back the value before every drop (a counter reset).
// Requires a non-empty range.
double ResetCorrectedIncrease(std::vector<Point>::const_iterator begin,
                              std::vector<Point>::const_iterator end) {
  double increase = (end - 1)->value - begin->value;
  for (auto it = begin + 1; it != end; ++it) {
    if (it->value < (it - 1)->value) increase += (it - 1)->value;
  }
  return increase;
}

}  // namespace

std::optional<double> PromRate(const std::vector<Point>& points, double t_s, double window_s,
                               WindowEdge edge) {
  if (!(window_s > 0)) return std::nullopt;
  const double range_start = t_s - window_s;
  // Right-closed; left-open (range_start, t_s] or left-closed [range_start, t_s].
  const auto begin = edge == WindowEdge::kLeftOpen
                         ? std::upper_bound(points.begin(), points.end(), range_start,
                                            [](double t, const Point& p) { return t < p.t_s; })
                         : std::lower_bound(points.begin(), points.end(), range_start,
                                            [](const Point& p, double t) { return p.t_s < t; });
  const auto end = std::upper_bound(begin, points.end(), t_s,
                                    [](double t, const Point& p) { return t < p.t_s; });
  const std::ptrdiff_t n = end - begin;
  if (n < 2) return std::nullopt;
  const Point& first = *begin;
  const Point& last = *(end - 1);
  const double sampled = last.t_s - first.t_s;
  if (!(sampled > 0)) return std::nullopt;

  const double increase = ResetCorrectedIncrease(begin, end);
  const double average_interval = sampled / static_cast<double>(n - 1);
  const double threshold = average_interval * kExtrapolationThreshold;
  double to_start = first.t_s - range_start;
  double to_end = t_s - last.t_s;
  if (to_start >= threshold) to_start = average_interval / 2;
  // A counter is never extrapolated below zero: stop at the point where it would reach 0.
  if (increase > 0 && first.value >= 0) {
    to_start = std::min(to_start, sampled * (first.value / increase));
  }
  if (to_end >= threshold) to_end = average_interval / 2;
  return increase * (sampled + to_start + to_end) / sampled / window_s;
}

std::vector<Point> WindowedRate(const std::vector<Point>& points, double step_s, double window_s,
                                WindowEdge edge) {
  KV_CHECK(step_s > 0) << "WindowedRate: step_s=" << step_s;
  std::vector<Point> series;
  if (points.empty()) return series;
  const double first_t = points.front().t_s;
  const double last_t = points.back().t_s;
  // t = first + k*step, not a running sum, so that steps land exactly on aligned samples.
  for (int64_t k = 0;; ++k) {
    const double t = first_t + static_cast<double>(k) * step_s;
    if (t > last_t) break;
    if (const auto rate = PromRate(points, t, window_s, edge)) series.push_back({t, *rate});
  }
  return series;
}

std::optional<double> FinalQuarterMean(const std::vector<Point>& series) {
  if (series.empty()) return std::nullopt;
  const std::size_t quarter = (series.size() + 3) / 4;  // ceil(n / 4)
  double sum = 0;
  for (auto it = series.end() - static_cast<std::ptrdiff_t>(quarter); it != series.end(); ++it) {
    sum += it->value;
  }
  return sum / static_cast<double>(quarter);
}

namespace {

// Δhits / Δqueries between the first and last points; nullopt without queries.
std::optional<double> BeforeAfterRatio(const std::vector<Point>& hits,
                                       const std::vector<Point>& queries) {
  const std::optional<double> hit_increase = CounterIncrease(hits);
  const std::optional<double> query_increase = CounterIncrease(queries);
  if (!hit_increase || !query_increase || !(*query_increase > 0)) return std::nullopt;
  return *hit_increase / *query_increase;
}

}  // namespace

HitRate ComputeHitRate(const std::vector<Point>& hits, const std::vector<Point>& queries,
                       double step_s, double window_s, WindowEdge edge) {
  KV_CHECK(step_s > 0) << "ComputeHitRate: step_s=" << step_s;
  HitRate result;
  // The "before" scrape plus at least two more: enough for a rolling rate.
  constexpr std::size_t kMinPointsForSeries = 3;
  if (hits.size() >= kMinPointsForSeries && queries.size() >= kMinPointsForSeries) {
    for (const Point& step : WindowedRate(queries, step_s, window_s, edge)) {
      if (!(step.value > 0)) continue;
      const std::optional<double> hit_rate = PromRate(hits, step.t_s, window_s, edge);
      if (hit_rate) result.series.push_back({step.t_s, *hit_rate / step.value});
    }
  }
  result.value =
      result.series.empty() ? BeforeAfterRatio(hits, queries) : FinalQuarterMean(result.series);
  return result;
}

std::optional<double> MeanBetween(const std::optional<HistogramTotals>& before,
                                  const std::optional<HistogramTotals>& after) {
  if (!before || !after) return std::nullopt;
  const double count = after->count - before->count;
  if (!(count > 0)) return std::nullopt;
  return (after->sum - before->sum) / count;
}

std::optional<double> GaugeMean(const std::vector<Point>& points) {
  if (points.empty()) return std::nullopt;
  double sum = 0;
  for (const Point& p : points) sum += p.value;
  return sum / static_cast<double>(points.size());
}

std::optional<double> CounterIncrease(const std::vector<Point>& points) {
  if (points.size() < 2) return std::nullopt;
  return ResetCorrectedIncrease(points.begin(), points.end());
}

}  // namespace kvbench::sampler
