#pragma once

#include <mutex>
#include <optional>
#include <vector>

namespace kvbench::runner {

// How late kv-runner's I/O loop ran over a replay: probe results (when a probe ran,
// how late it was) kept as the largest lateness per time bucket, so a run of any length costs a
// few bytes per bucket, and any request's window can ask what the loop was like while it was in
// flight. Times are the replay clock's seconds. Thread-safe.
class LagTimeline {
 public:
  // `bucket_s` > 0: the resolution of MaxBetween.
  explicit LagTimeline(double bucket_s);

  // A probe that ran at `at_s` (>= 0) `lag_s` late.
  void Record(double at_s, double lag_s);

  // The largest lateness of the probes that ran in the buckets from `from_s`'s to `to_s`'s; when
  // none did (a window shorter than the probe period), the latest bucket before them that had a
  // probe, up to kLookBackBuckets back. nullopt when there is none.
  std::optional<double> MaxBetween(double from_s, double to_s) const;

  static constexpr int kLookBackBuckets = 50;

 private:
  const double bucket_s_;
  mutable std::mutex mu_;
  std::vector<double> max_lag_;  // per bucket, guarded by mu_; < 0: no probe ran in it
};

}  // namespace kvbench::runner
