#pragma once

#include <nlohmann/json.hpp>

#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// `results.observability` of an llm-d Benchmark Report v0.2.1 (llmd_report.h) for one kvbench
// scenario that has a result. `components`: the replicas together (KV cache usage, prefix-cache hit
// rate, preemptions: result.json sums them over replicas; KV cache usage over time, dated by
// llmd_time_series.h), each replica's process and the node's GPUs (replica_id "replica-0",
// "gpu-0"), the cache server and Caddy. Under the key "kvbench" (the schema lets observability
// carry extra keys) what the schema has no field for: tier, the comparison group's verdict with its
// reasons and notes, the external (offload) hit rate and the prompt tokens offload served, the
// replay's start and the hit rates over time, the tier's capacity at the SLO of a search, and
// result.json's engine, lmcache, disk, telemetry, host_load and sessions blocks as they are.
nlohmann::ordered_json LlmdObservability(const v1::Job& job, const v1::ScenarioStatus& status);

}  // namespace kvbench::kvctl
