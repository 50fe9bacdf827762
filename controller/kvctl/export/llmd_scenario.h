#pragma once

#include <nlohmann/json.hpp>

#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// The `scenario` of an llm-d Benchmark Report v0.2.1 (llmd_report.h) for one kvbench scenario
// that has a result: `stack` (the vLLM replicas as an inference_engine; the cache server, for
// CPU_RAM and NVME, and Caddy as generic components carrying the tier, pool sizes and routing)
// and `load` (kv-runner's closed-loop, multi-turn replay). Pure: the job's spec and the
// scenario's record in, JSON out; every number is the spec's or result.json's.
nlohmann::ordered_json LlmdScenario(const v1::Job& job, const v1::ScenarioStatus& status);

// The stack labels observability and component health refer to.
inline constexpr char kLlmdEngineLabel[] = "vllm";
inline constexpr char kLlmdCacheServerLabel[] = "lmcache";
inline constexpr char kLlmdProxyLabel[] = "caddy";

}  // namespace kvbench::kvctl
