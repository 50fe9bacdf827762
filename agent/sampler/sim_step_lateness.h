#pragma once

// kvsim-vllm's kvsim:step_lateness_seconds over a replay: how late the simulated
// engine's steps went out. Pure.

#include <cstdint>
#include <map>
#include <optional>

namespace kvbench::sampler {

// A histogram's increase over the replay, summed over replicas: cumulative bucket counts by upper
// bound (+Inf included), the sum and the count.
struct HistogramIncrease {
  std::map<double, double> buckets;
  double sum = 0;
  double count = 0;
};

struct SimStepLateness {
  int64_t steps = 0;
  double mean_s = 0;
  std::optional<double> p90_s;  // unset without buckets
  std::optional<double> p99_s;
};

// The φ-quantile (0..1) of a cumulative histogram as PromQL's histogram_quantile computes it
// (prometheus/prometheus promql/quantile.go, bucketQuantile): rank = φ x the +Inf bucket's count;
// the first bucket whose count reaches the rank; linear interpolation between its lower bound (the
// previous bound, or 0) and its upper bound; the highest finite bound when the rank falls in the
// +Inf bucket. nullopt without a +Inf bucket or observations.
std::optional<double> HistogramQuantile(double phi, const std::map<double, double>& buckets);

// Steps, mean lateness (sum / count), p90 and p99; nullopt when no step went out (count 0).
std::optional<SimStepLateness> SummarizeStepLateness(const HistogramIncrease& increase);

}  // namespace kvbench::sampler
