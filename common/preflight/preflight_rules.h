#pragma once

// What a preflight check means for placement, one rule for the agent (kv-agent
// --preflight, kvctl doctor scoping a spec) and the controller's scheduler. Pure.

#include <optional>
#include <string>

#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench {

// OK or SKIP.
bool PreflightPasses(const v1::PreflightCheck& check);

// Whether `check` keeps off a scenario of `tier` that runs `engine_profile` and (CPU_RAM/NVME)
// `cache_profile`: it FAILs, names that tier or none, and one of those profiles or none.
bool PreflightKeepsOff(const v1::PreflightCheck& check, v1::Tier tier,
                       const std::string& engine_profile,
                       const std::optional<std::string>& cache_profile);

}  // namespace kvbench
