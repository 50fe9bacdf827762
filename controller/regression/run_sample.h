#pragma once

// One scenario's run as the regression statistics see it: its successful requests
// grouped by virtual user, the unit a bootstrap resamples (a user's requests share a growing
// context and a prefix cache: they are correlated, users are not). Pure.

#include <cstdint>
#include <string>
#include <vector>

#include "kvbench/v1/event.pb.h"

namespace kvbench::regression {

// One virtual user's successful requests (error unset), as agent/results/scenario_metrics.h
// defines the per-request quantities.
struct UserRequests {
  std::string user_id;
  std::vector<double> ttft_s;  // requests that have a TTFT
  // (end_s - first_token_s) / (output_tokens - 1) of requests with >= 2 output tokens and a first
  // token.
  std::vector<double> tpot_s;
  int64_t requests = 0;
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cached_tokens = 0;     // sum of the server-reported cached prompt tokens
  bool reported_cached = false;  // some request of the user carried cached_tokens
  // First scheduled_s to last end_s of the user's rows (failed ones too): the user's share of the
  // run's time, which a resample's throughput is measured over (regression_metric.h).
  double span_s = 0;
};

// A scenario's run: every user that sent a request (a user whose requests all failed is kept,
// with no samples: resampling it still weighs the run's failures) and the measured window. Times
// are shown seconds: for a simulated engine observed seconds ÷ sim_time_scale, what the calibrated
// H200 would take (results/simulated_time_display.h), so runs at different scales compare.
struct RunSample {
  std::string label;  // what the run is called in messages, e.g. "job-12/00-gpu-c2"
  std::vector<UserRequests> users;
  // The measured window: min scheduled_s to max end_s over all rows (scenario_metrics.h).
  double duration_s = 0;
};

// Groups the rows by user_id in order of first appearance. `time_scale` is the result's
// sim_time_scale (real seconds per shown second; 1 for a real engine); > 0.
RunSample GroupByUser(std::string label, const std::vector<v1::RequestRow>& rows,
                      double time_scale = 1);

}  // namespace kvbench::regression
