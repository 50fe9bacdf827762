#include "agent/sampler/sim_step_lateness.h"

#include <cmath>
#include <iterator>

namespace kvbench::sampler {

std::optional<double> HistogramQuantile(double phi, const std::map<double, double>& buckets) {
  if (buckets.empty() || !std::isinf(buckets.rbegin()->first)) return std::nullopt;
  const double observations = buckets.rbegin()->second;
  if (!(observations > 0)) return std::nullopt;
  const double rank = phi * observations;
  double lower_bound = 0;
  double lower_count = 0;
  for (auto it = buckets.begin(); it != buckets.end(); ++it) {
    const auto& [upper_bound, count] = *it;
    if (count < rank) {
      lower_bound = upper_bound;
      lower_count = count;
      continue;
    }
    if (std::isinf(upper_bound)) {
      // The rank lies past the highest finite bound: PromQL answers that bound.
      return buckets.size() > 1 ? std::prev(it)->first : 0.0;
    }
    if (it == buckets.begin() && upper_bound <= 0) return upper_bound;
    const double in_bucket = count - lower_count;
    if (!(in_bucket > 0)) return upper_bound;
    return lower_bound + (upper_bound - lower_bound) * ((rank - lower_count) / in_bucket);
  }
  return std::nullopt;  // counts not cumulative (a reset mid-replay): no answer
}

std::optional<SimStepLateness> SummarizeStepLateness(const HistogramIncrease& increase) {
  if (!(increase.count > 0)) return std::nullopt;
  SimStepLateness lateness;
  lateness.steps = static_cast<int64_t>(std::llround(increase.count));
  lateness.mean_s = increase.sum / increase.count;
  lateness.p90_s = HistogramQuantile(0.90, increase.buckets);
  lateness.p99_s = HistogramQuantile(0.99, increase.buckets);
  return lateness;
}

}  // namespace kvbench::sampler
