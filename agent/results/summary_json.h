#pragma once

#include "kvbench/v1/result.pb.h"
#include "nlohmann/json.hpp"

namespace kvbench::agent::results {

// The `--summary` object of one scenario: flat keys in seconds, %, per-second rates and counts.
// Every optional proto field maps to JSON null when unset ("not measured"), never to 0:
//   ttft_mean_s ttft_p50_s ttft_p90_s ttft_p95_s ttft_p99_s tpot_mean_s input_tokens_per_s
//   output_tokens_per_s requests_per_s ttft_degradation_median_pct ttft_degradation_p95_pct
//   reuse_same_user_pct reuse_any_user_pct dispatch_lag_p99_s duration_s requests_completed
//   sessions_requested sessions_achieved sessions_dataset_ceiling sessions_total
//   sessions_complete sessions_incomplete sessions_error sessions_not_started
//   sessions_truncated_by_isl failed_requests prompt_tokens_total output_tokens_total
//   cached_tokens_total (null when no response reported cached tokens)
//   ttft_by_round: [{round, count, p50_s, p95_s, mean_s}, ...] in round order.
nlohmann::json SummaryJson(const v1::LatencyMetrics& latency, const v1::SessionCounts& sessions);

}  // namespace kvbench::agent::results
