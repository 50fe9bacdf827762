#pragma once

#include <cstdint>
#include <string>

namespace kvbench::sampler {

// EngineMetrics.external_query_counting values (result.proto).
inline constexpr char kPromptMinusLocal[] = "prompt_minus_local";
inline constexpr char kWholePrompt[] = "whole_prompt";

// How vLLM counted vllm:external_prefix_cache_queries over a replay, told from
// the token increases of the same span (pure). One scheduler generation records the connector's
// queries after allocation as the prompt tokens less the local prefix-cache hits
// (vllm-project/vllm:vllm/v1/core/sched/scheduler.py@00024d31); another,
// _update_connector_prefix_cache_stats, records request.num_tokens, the whole prompt. So
// external ≈ queries − hits → kPromptMinusLocal, external ≈ queries → kWholePrompt, each within
// 2% of the queries (preemptions and requests in flight at the scrapes blur the equality on a
// real engine). "" when it cannot be told: no external queries, no local hits (both readings
// agree), or neither fits.
std::string ExternalQueryCounting(int64_t prefix_query_tokens, int64_t prefix_hit_tokens,
                                  int64_t external_query_tokens);

}  // namespace kvbench::sampler
