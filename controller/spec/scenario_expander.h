#pragma once

#include <string>
#include <vector>

#include "kvbench/v1/job.pb.h"

namespace kvbench::spec {

// Expands a valid, effective spec into its scenario matrix: one scenario per (concurrency x
// tier), everything else held fixed. The order is stable and independent of how the spec lists
// its values: concurrency ascending, and within each the tiers in canonical order GPU, CPU_RAM,
// NVME, so the tiers compared at one concurrency sit together. Scenario ids are
// "<index>-<tier>-c<concurrency>" ("00-gpu-c2", "01-cpu-ram-c2"), the comparison group
// "c<concurrency>". Pure.
std::vector<v1::Scenario> ExpandScenarios(const v1::JobSpec& spec, const std::string& job_id);

// "gpu", "cpu-ram", "nvme": the tier as it appears in ids and file names.
std::string TierSlug(v1::Tier tier);

}  // namespace kvbench::spec
