#include "agent/sampler/rate_math.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "common/log/logging.h"

namespace kvbench::sampler {
namespace {

// "Close enough" to a window edge to extrapolate all the way to it: up to 10% more than the
// average interval between the window's samples (promql/functions.go).
constexpr double kExtrapolationThreshold = 1.1;

// The final quarter of a replay starts three quarters of the way through it.
constexpr double kFinalQuarterStart = 0.75;

// A sample this close (relative to the times involved) to a window's edge is ON the edge. The
// sampler's times are whole milliseconds, as Prometheus's are, and a step's edge t - W computed
// in seconds misses such a sample by an ulp in ~15% of cases (4.001 - 4 > 0.001 and
// 4.002 - 4 < 0.002 as doubles): without this, which of two ms-equal times is later is noise.
constexpr double kEdgeRelativeTolerance = 1e-12;

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
  const double tolerance =
      kEdgeRelativeTolerance * std::max({1.0, std::abs(t_s), std::abs(window_s)});
  // Right-closed; left-open (range_start, t_s] or left-closed [range_start, t_s].
  const auto after = [](double t, const Point& p) { return t < p.t_s; };
  const auto begin =
      edge == WindowEdge::kLeftOpen
          ? std::upper_bound(points.begin(), points.end(), range_start + tolerance, after)
          : std::upper_bound(points.begin(), points.end(), range_start - tolerance, after);
  const auto end = std::upper_bound(begin, points.end(), t_s + tolerance, after);
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

size_t StepsFor(size_t samples) { return kStepsPerSample * std::max<size_t>(samples, 1); }

std::vector<double> StepGrid(double first_t, double last_t, double step_s, size_t max_steps) {
  KV_CHECK(step_s > 0) << "StepGrid: step_s=" << step_s;
  KV_CHECK(max_steps > 0) << "StepGrid: max_steps=0";
  // Never more than max_steps: a step far below the span (sampling.period_s 1e-9 would spin an
  // agent core for minutes) is widened to span / max_steps.
  if (last_t > first_t && (last_t - first_t) / step_s > static_cast<double>(max_steps)) {
    step_s = (last_t - first_t) / static_cast<double>(max_steps);
  }
  std::vector<double> steps;
  // t = last - k*step, not a running difference, so that the last step is exactly the last
  // scrape and steps land exactly on aligned samples.
  for (int64_t k = 0; steps.size() <= max_steps; ++k) {
    const double t = last_t - static_cast<double>(k) * step_s;
    if (t < first_t) break;
    steps.push_back(t);
  }
  std::reverse(steps.begin(), steps.end());
  return steps;
}

std::vector<Point> WindowedRate(const std::vector<Point>& points, double step_s, double window_s,
                                WindowEdge edge) {
  KV_CHECK(step_s > 0) << "WindowedRate: step_s=" << step_s;
  std::vector<Point> series;
  if (points.empty()) return series;
  for (const double t :
       StepGrid(points.front().t_s, points.back().t_s, step_s, StepsFor(points.size()))) {
    if (const auto rate = PromRate(points, t, window_s, edge)) series.push_back({t, *rate});
  }
  return series;
}

std::optional<double> SummedRate(const std::vector<std::vector<Point>>& series, double t_s,
                                 double window_s, WindowEdge edge) {
  std::optional<double> sum;
  for (const std::vector<Point>& points : series) {
    if (const auto rate = PromRate(points, t_s, window_s, edge)) sum = sum.value_or(0) + *rate;
  }
  return sum;
}

std::optional<double> FinalQuarterMean(const std::vector<Point>& series, double start_s,
                                       double end_s) {
  const double from = start_s + kFinalQuarterStart * (end_s - start_s);
  double sum = 0;
  std::size_t count = 0;
  for (const Point& point : series) {
    if (point.t_s < from) continue;
    sum += point.value;
    ++count;
  }
  if (count == 0) return std::nullopt;
  return sum / static_cast<double>(count);
}

namespace {

// Σ increase(hits) / Σ increase(queries) over the replicas between each one's first and last
// points; nullopt without queries or without any replica's hits.
std::optional<double> BeforeAfterRatio(const std::vector<ReplicaCounters>& replicas) {
  std::optional<double> hits;
  std::optional<double> queries;
  for (const ReplicaCounters& replica : replicas) {
    if (const auto increase = CounterIncrease(replica.hits)) hits = hits.value_or(0) + *increase;
    if (const auto increase = CounterIncrease(replica.queries)) {
      queries = queries.value_or(0) + *increase;
    }
  }
  if (!hits || !queries || !(*queries > 0)) return std::nullopt;
  return *hits / *queries;
}

// The earliest and latest scrape of any replica's counters; nullopt when there is none.
std::optional<std::pair<double, double>> ScrapeTimeRange(
    const std::vector<ReplicaCounters>& replicas) {
  std::optional<std::pair<double, double>> span;
  for (const ReplicaCounters& replica : replicas) {
    for (const std::vector<Point>* points : {&replica.hits, &replica.queries}) {
      if (points->empty()) continue;
      if (!span) span = std::make_pair(points->front().t_s, points->back().t_s);
      span->first = std::min(span->first, points->front().t_s);
      span->second = std::max(span->second, points->back().t_s);
    }
  }
  return span;
}

}  // namespace

HitRate ComputeHitRate(const std::vector<ReplicaCounters>& replicas, double step_s, double window_s,
                       WindowEdge edge) {
  KV_CHECK(step_s > 0) << "ComputeHitRate: step_s=" << step_s;
  HitRate result;
  result.before_after = BeforeAfterRatio(replicas);
  const auto span = ScrapeTimeRange(replicas);
  if (!span) return result;
  std::vector<std::vector<Point>> hits;
  std::vector<std::vector<Point>> queries;
  for (const ReplicaCounters& replica : replicas) {
    hits.push_back(replica.hits);
    queries.push_back(replica.queries);
  }
  size_t points = 0;
  for (const ReplicaCounters& replica : replicas) points += replica.queries.size();
  for (const double t : StepGrid(span->first, span->second, step_s, StepsFor(points))) {
    const std::optional<double> query_rate = SummedRate(queries, t, window_s, edge);
    if (!query_rate || !(*query_rate > 0)) continue;
    if (const auto hit_rate = SummedRate(hits, t, window_s, edge)) {
      result.series.push_back({t, *hit_rate / *query_rate});
    }
  }
  if (result.series.size() >= kMinStepsForPlateau) {
    result.value = FinalQuarterMean(result.series, span->first, span->second);
    if (result.value) result.method = HitRateMethod::kRollingFinalQuarter;
  }
  if (!result.value && result.before_after) {
    result.value = result.before_after;
    result.method = HitRateMethod::kBeforeAfter;
  }
  return result;
}

HitRate ComputeHitRate(const std::vector<Point>& hits, const std::vector<Point>& queries,
                       double step_s, double window_s, WindowEdge edge) {
  return ComputeHitRate(std::vector<ReplicaCounters>{{hits, queries}}, step_s, window_s, edge);
}

void UseOneMethod(HitRate* local, HitRate* external) {
  if (!local->value || !external->value || local->method == external->method) return;
  for (HitRate* rate : {local, external}) {
    rate->value = rate->before_after;
    rate->method = rate->value ? HitRateMethod::kBeforeAfter : HitRateMethod::kNone;
  }
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
