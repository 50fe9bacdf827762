#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agent/runner/request_record.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::agent::results {

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
// - prompt_tokens_total, output_tokens_total: sums of the successful requests' prompt_tokens and
//   output_tokens (the work done; equal across tiers when each round asks for a fixed length).
// - cached_tokens_total: sum of the successful requests' cached_tokens; null when no record
//   has cached_tokens.
// - ttft_by_round: one entry per round index seen in any record, ascending; count = TTFT samples
//   of that round; p50/p95/mean null when count is 0.
// - TTFT degradation (median): (median TTFT of all samples in rounds >= 2 - median TTFT of
//   round 1) / median TTFT of round 1 x 100; likewise with p95. Null when either side has no
//   samples or the round-1 value is not positive.
// - dispatch_lag_p99_s: p99 of (sent_s - scheduled_s) over all records.
// Reuse opportunity fields are left unset here (see reuse_opportunity.h).
v1::LatencyMetrics ComputeLatencyMetrics(const std::vector<runner::RequestRecord>& records);

// A virtual user the runner chose, with the rounds it was meant to send: expected_rounds (its
// chunk's length) and sendable_rounds (those before the first prompt over ISL; -1 = all of them).
struct PlannedUser {
  PlannedUser() = default;
  PlannedUser(std::string user, int expected, std::string session = "", int sendable = -1)
      : user_id(std::move(user)),
        expected_rounds(expected),
        session_id(std::move(session)),
        sendable_rounds(sendable) {}

  std::string user_id;
  int expected_rounds = 0;
  std::string session_id;
  int sendable_rounds = -1;

  int sendable() const { return sendable_rounds < 0 ? expected_rounds : sendable_rounds; }
};

// What the runner planned for a replay (kv-runner's summary.json, session_plan_json.h).
struct SessionPlan {
  int requested = 0;        // virtual users asked for
  int dataset_ceiling = 0;  // virtual users the dataset yields at this num_rounds
  // Virtual users all of whose rounds fit under ISL; unset unless ISL > 0 and prompts counted.
  std::optional<int> dataset_ceiling_under_isl;
  std::string selection;                   // how the users were chosen (user_selection.h)
  std::vector<PlannedUser> planned_users;  // the chosen users
};

// Session counts of one replay ("sessions as they happened"). Each user among planned_users and
// the records' user ids gets exactly one outcome, so
// total = complete + incomplete + error + not_started + truncated_by_isl:
// - error: a request of it failed (a failure ends the user);
// - complete: every round 1..expected_rounds succeeded;
// - truncated_by_isl: sendable < expected (ISL ended it) and every sendable round succeeded,
//   including 0 sent when round 1 is over ISL;
// - not_started: sent nothing otherwise (the run stopped first);
// - incomplete: sent some but not all of its sendable rounds (a stop signal), or not planned.
// requested, dataset_ceiling, dataset_ceiling_under_isl and selection as the plan says;
// achieved = min(requested, ceiling, ceiling under ISL when known); failed_requests = records
// with an error.
v1::SessionCounts ComputeSessionCounts(const std::vector<runner::RequestRecord>& records,
                                       const SessionPlan& plan);

// The same, for a plan of these users (no ISL ceiling, no selection text).
v1::SessionCounts ComputeSessionCounts(const std::vector<runner::RequestRecord>& records,
                                       int requested_users, int dataset_ceiling,
                                       const std::vector<PlannedUser>& planned_users);

}  // namespace kvbench::agent::results
