#pragma once

// What a metric is computed from when it is computed from request rows rather than read from a
// result: a set of virtual users' successful requests pooled (a run, a bootstrap resample of it,
// several runs), times in seconds (simulated seconds for a simulated engine). The regression
// statistics fill it (regression::ComputeMetrics); the metric catalog's of_requests read it.

#include <cstdint>
#include <vector>

namespace kvbench::results {

struct PooledRequests {
  std::vector<double> ttft_s;  // ascending
  std::vector<double> tpot_s;  // requests with >= 2 output tokens
  int64_t requests = 0;
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cached_tokens = 0;
  bool reported_cached = false;  // some response reported cached_tokens
  double duration_s = 0;         // the window the rates are over; 0: no window
};

}  // namespace kvbench::results
