#pragma once

// Every field of a scenario's result as flat CSV columns (`kvctl results --output csv`).

#include <string>
#include <utility>
#include <vector>

#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// The fields `message` has set, depth first in field-number order, as (column, text) pairs:
// nested fields joined with "." (latency.ttft_p50_s), repeated messages by index
// (latency.ttft_by_round.0.ttft_p50_s), maps by key (telemetry.process_cpu_pct_mean.replica-0),
// repeated scalars joined with "; ". One column is renamed: lmcache.hit_rate is
// lmcache.lookup_hit_rate (LMCache's lookup-based rate; engine.external_hit_tokens is what
// offload served). Numbers in their shortest text that reads back to the same
// double; enums by name. Time series (`series`) are left to the JSON output, and the result's
// scenario_id, tier and concurrency to the row's own columns.
std::vector<std::pair<std::string, std::string>> FlattenResult(const v1::ScenarioResult& result);

// One row per scenario: scenario_id, tier, concurrency, repeat, agent_id, state, comparison_group,
// verdict (its group's, as job.json spells it: VERDICT_VALID, ...; empty before there is one),
// error, then the union of every
// scenario's result columns in first-seen order (empty where a scenario lacks one).
void PrintResultsFullCsv(const v1::Job& job, std::ostream& out);

}  // namespace kvbench::kvctl
