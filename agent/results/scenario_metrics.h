#pragma once

#include <string>
#include <vector>

#include "agent/runner/request_record.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// Latency and throughput of one replay, from its per-request records (any order). Pure.
// Definitions (percentiles as in percentiles.h; every "null" is an unset proto optional, never 0):
// - successful request: `error` unset. Failed requests count only toward the window and the
//   dispatch lag (and SessionCounts.failed_requests).
// - TTFT mean/p50/p90/p95/p99: over successful requests' `ttft_s` (those that have one).
// - TPOT mean: over successful requests with output_tokens >= 2 and first_token_s set, of
//   (end_s - first_token_s) / (output_tokens - 1).
// - duration_s, the measured window: min scheduled_s to max end_s over all records (0 if none).
// - input/output tokens per s and requests per s: successful requests' prompt_tokens,
//   output_tokens and count, divided by the window; null when the window is not positive.
// - requests_completed: the number of successful requests.
// - ttft_by_round: one entry per round index seen in any record, ascending; count = TTFT samples
//   of that round; p50/p95/mean null when count is 0.
// - TTFT degradation (median): (median TTFT of all samples in rounds >= 2 - median TTFT of
//   round 1) / median TTFT of round 1 x 100; likewise with p95. Null when either side has no
//   samples or the round-1 value is not positive.
// - dispatch_lag_p99_s: p99 of (sent_s - scheduled_s) over all records.
// Reuse opportunity fields are left unset here (see reuse_opportunity.h).
v1::LatencyMetrics ComputeLatencyMetrics(const std::vector<runner::RequestRecord>& records);

// A virtual user the replay started, with the number of rounds it was meant to send.
struct PlannedUser {
  std::string user_id;
  int expected_rounds = 0;
};

// Session counts of one replay. `planned_users` are the virtual users the runner started.
// - requested = requested_users; dataset_ceiling as given; achieved = min(requested, ceiling).
// - total: distinct users among planned_users and the records' user ids.
// - error: users with at least one failed request.
// - complete: users without failures whose successful rounds cover 1..expected_rounds.
// - incomplete: the rest (stopped by SIGINT or by ISL, never started, or not in planned_users).
// - failed_requests: records with an error.
// total == complete + incomplete + error always holds.
v1::SessionCounts ComputeSessionCounts(const std::vector<runner::RequestRecord>& records,
                                       int requested_users, int dataset_ceiling,
                                       const std::vector<PlannedUser>& planned_users);

}  // namespace kvbench::results
