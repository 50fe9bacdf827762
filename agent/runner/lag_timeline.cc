#include "agent/runner/lag_timeline.h"

#include <algorithm>
#include <cmath>

namespace kvbench::runner {
namespace {

constexpr double kNoProbe = -1;

}  // namespace

LagTimeline::LagTimeline(double bucket_s) : bucket_s_(bucket_s) {}

void LagTimeline::Record(double at_s, double lag_s) {
  if (!(at_s >= 0) || !(lag_s >= 0)) return;
  const size_t bucket = static_cast<size_t>(at_s / bucket_s_);
  std::lock_guard<std::mutex> lock(mu_);
  if (bucket >= max_lag_.size()) max_lag_.resize(bucket + 1, kNoProbe);
  max_lag_[bucket] = std::max(max_lag_[bucket], lag_s);
}

std::optional<double> LagTimeline::MaxBetween(double from_s, double to_s) const {
  const double first = std::floor(std::max(from_s, 0.0) / bucket_s_);
  const double last = std::floor(std::max(to_s, from_s) / bucket_s_);
  std::lock_guard<std::mutex> lock(mu_);
  if (max_lag_.empty()) return std::nullopt;
  const double end = std::min(last, static_cast<double>(max_lag_.size() - 1));
  double best = kNoProbe;
  for (double bucket = first; bucket <= end; ++bucket) {
    best = std::max(best, max_lag_[static_cast<size_t>(bucket)]);
  }
  for (double bucket = std::min(first, static_cast<double>(max_lag_.size())) - 1;
       best == kNoProbe && bucket >= 0 && bucket >= first - kLookBackBuckets; --bucket) {
    best = max_lag_[static_cast<size_t>(bucket)];
  }
  if (best == kNoProbe) return std::nullopt;
  return best;
}

}  // namespace kvbench::runner
