#pragma once

// Jobs and results for the validity table tests: a clean job is VALID, and each test changes one
// thing.

#include <string>
#include <vector>

#include "controller/results/scenario_run.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::results::testing {

inline constexpr int kReplicas = 2;
inline constexpr int kGpuBlocks = 1024;  // per replica: 2 x 1,024 x 16 = 32,768 tokens
inline constexpr int kBlockSize = 16;
// The clean workload: 100,000 prompt tokens, 80% of them reusable, 5,000 output tokens.
inline constexpr int64_t kPromptTokens = 100000;
inline constexpr double kReuseAnyUserPct = 80;
inline constexpr int64_t kOutputTokens = 5000;
// The clean GPU tier's own cache served 40,000 of the 80,000 reusable tokens (50%: it ran short).
inline constexpr int64_t kGpuCachedTokens = 40000;
// What each clean offload tier served.
inline constexpr int64_t kExternalHitTokens = 30000;

// A clean, succeeded result: every session complete, no failures, the same work in every tier,
// the GPU tier's KV capacity reported, a working set of 120,000 tokens (above 32,768), the GPU
// tier short of cache (50% of the reuse) and each offload tier serving 30,000 prompt tokens.
v1::ScenarioResult CleanResult(const v1::Scenario& scenario);

// A job of tiers x concurrencies expanded as the controller does, every scenario succeeded,
// scenario ids "00-gpu-c8", "01-cpu-ram-c8", ...
v1::Job CleanJob(const std::vector<v1::Tier>& tiers, const std::vector<int>& concurrencies);

// GPU and CPU_RAM at concurrency 8: 00-gpu-c8, 01-cpu-ram-c8.
std::vector<ScenarioRun> CleanPair();

std::vector<std::string> Codes(const v1::Validity& validity);
std::vector<std::string> NoteCodes(const v1::Validity& validity);

// The one verdict of a single-group input (REQUIREs there is exactly one).
v1::Validity OnlyVerdict(const std::vector<ScenarioRun>& runs);

}  // namespace kvbench::results::testing
