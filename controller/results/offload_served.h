#pragma once

// What offload actually served in a scenario, beside LMCache's lookup-based hit rate:
// vLLM's external prefix-cache hit tokens over the replay, as a share of the replay's prompt
// tokens. LMCache's own hit rate (lookup hit tokens / lookup requested tokens) counts lookups,
// including those of tokens vLLM already had on the GPU, so it is labelled "lookup hit rate" and
// shown next to this figure.

#include <cstdint>
#include <optional>

#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// EngineMetrics.external_hit_tokens; nullopt when the counter was absent (GPU tier).
inline std::optional<double> OffloadServedTokens(const v1::ScenarioResult& result) {
  if (!result.engine().has_external_hit_tokens()) return std::nullopt;
  return static_cast<double>(result.engine().external_hit_tokens());
}

// 100 x external_hit_tokens / LatencyMetrics.prompt_tokens_total (the replay's successful
// requests); nullopt without either.
inline std::optional<double> OffloadServedPctOfPrompt(const v1::ScenarioResult& result) {
  const std::optional<double> served = OffloadServedTokens(result);
  const int64_t prompt = result.latency().prompt_tokens_total();
  if (!served || prompt <= 0) return std::nullopt;
  return *served / static_cast<double>(prompt) * 100.0;
}

}  // namespace kvbench::results
