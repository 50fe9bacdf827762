#pragma once

// The validity checks about what a group ran against, beside validity_checks.h. Pure.

#include <string>
#include <vector>

#include "controller/results/scenario_run.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// The components whose release must be the same in every tier of a group: the engine, the cache
// server (among the tiers that run one) and the model's config. kvbench's own version, Caddy's
// and the GPU driver's are recorded but do not invalidate a comparison.
bool VersionMustMatch(const std::string& component);

// kMixedVersions when two scenarios of the group report different versions of a component that
// must match, naming the component and each version with its tiers ("vllm: 0.33.0 (GPU) vs
// 0.12.0 (CPU_RAM)"). A component a scenario did not record (an older agent, "unknown") is not
// compared.
void CheckVersions(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity);

// kNvmePoolUnbounded when an NVME scenario's LMCache L2 usage (l2_usage_bytes_max) exceeded the
// pool it was given (nvme_pool_gb GiB) and its L2 evicted nothing (l2_evicted_chunks unset or 0;
// a bounded pool may pass its size between two eviction ticks, then evicts): the release ignored
// the pool's eviction block
// (LMCache/LMCache:lmcache/v1/distributed/l2_adapters/config.py@aa88f5bd parses no eviction), so
// the NVME tier had an unbounded pool and a different capacity from the one compared.
void CheckNvmePoolBounded(const std::vector<const ScenarioRun*>& with_results,
                          v1::Validity* validity);

}  // namespace kvbench::results
