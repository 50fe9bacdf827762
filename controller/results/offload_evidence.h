#pragma once

// Whether a comparison group exercised offload, from evidence rather than from "any
// external hit": with 2+ replicas the offload tiers always serve some prefixes computed on the
// other replica (a shared system prompt, an earlier chunk of the same session), which a sticky
// GPU tier cannot share, so an external hit alone proves nothing about GPU capacity.

#include <string>
#include <vector>

#include "controller/results/scenario_run.h"

namespace kvbench::results {

// The GPU tier achieved nearly all the reuse there was when its own prefix cache served at least
// this share of the reusable prompt tokens (256-token chunks: vLLM's 16-token blocks can serve a
// little more than the chunk count, never much less unless it evicted).
inline constexpr double kGpuReuseAchievedShare = 0.95;
// vllm:kv_cache_usage_perc at or above this in an in-replay scrape: the GPU's KV blocks were full.
inline constexpr double kGpuKvUsageFull = 0.95;

// What the GPU (no-offload) tier's own measurements say about its KV capacity.
struct GpuPressure {
  enum class Finding {
    kRanShort,       // preempted, filled its KV blocks, or missed reuse there was to get
    kNeverRanShort,  // served nearly all the reuse there was, or its working set fit
    kUnknown,        // nothing measured to tell
  };
  Finding finding = Finding::kUnknown;
  // Each piece of evidence measured, as a clause ("0 preemptions", "KV cache usage peaked at
  // 3.0%", "its own prefix cache served 99.1% of the reusable prompt tokens (61,234 of
  // 61,800)"), the deciding one first.
  std::vector<std::string> facts;
};
// Evidence, in order of strength: preemptions > 0 (ran short); the GPU's own prefix-cache hits
// against the reuse there was to get — exactly, per request, the cached tokens capped at what the
// same user's earlier rounds computed (latency.same_user_reusable_cached_tokens /
// same_user_reusable_tokens: a sticky GPU tier that evicted nothing serves all of it), else in
// aggregate (cached tokens or the hit counter against the reuse opportunity x prompt tokens) —
// below kGpuReuseAchievedShare ran short, at or above never ran short; without any reuse
// comparison, KV usage max >= kGpuKvUsageFull (ran short: one scrape of one replica, so it
// decides only where nothing better was measured) and the working set
// (peak_concurrent_tokens) against replicas x num_gpu_blocks x block_size. Pure.
GpuPressure AssessGpuPressure(const ScenarioRun& gpu);

// What the offload tiers served: per tier, a clause such as "CPU_RAM served 41,200 prompt tokens
// (160 LMCache chunks loaded)" in `served`, or "NVME 0 external-hit tokens, 0 chunks loaded" in
// `idle`. A tier served when its external_hit_tokens > 0 (the connector's hit-token counter over
// the replay), or, for a result without that counter, its external_hit_rate > 0. Pure.
struct OffloadService {
  std::vector<std::string> served;
  std::vector<std::string> idle;
};
OffloadService AssessOffloadService(const std::vector<const ScenarioRun*>& with_results);

}  // namespace kvbench::results
