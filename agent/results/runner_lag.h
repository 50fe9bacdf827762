#pragma once

// How late kv-runner itself was over a replay, from its per-request records. Pure.

#include <vector>

#include "agent/runner/request_record.h"
#include "kvbench/v1/result.pb.h"
#include "nlohmann/json.hpp"

namespace kvbench::agent::results {

// HostLoad's runner figures (percentiles as in percentiles.h, unset = not measured):
// - runner_send_lag_{p50,p99,max}_s over every record of (sent_s - scheduled_s);
// - runner_loop_lag_{p50,p90,p99,max}_s over the records' loop_lag_s (those that have one).
// The simulator figures are left unset (they come from the scrapes).
v1::HostLoad ComputeRunnerLag(const std::vector<runner::RequestRecord>& records);

// The same figures as flat keys of kv-runner's summary object (null when unset):
// runner_send_lag_{p50,p99,max}_s, runner_loop_lag_{p50,p90,p99,max}_s.
void AddRunnerLag(const v1::HostLoad& lag, nlohmann::json* summary);

}  // namespace kvbench::agent::results
