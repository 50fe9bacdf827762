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
// "c<concurrency>".
// With `repeats` N > 1 each concurrency's tiers run N times, interleaved (GPU, CPU_RAM, NVME,
// GPU, ...) so that drift on the node (thermals, a neighbour, page cache) hits every tier alike;
// ids end in "-r<repeat>" ("03-gpu-c2-r2"), repeats share the comparison group, and repeat r
// carries seed + r - 1 (Scenario.seed), the same in every tier of the repeat. Pure.
// A spec with a concurrency search expands into the search's first round: each tier at the
// search's min, `repeats` times (ExpandProbes); the controller adds the rest as rounds end.
std::vector<v1::Scenario> ExpandScenarios(const v1::JobSpec& spec, const std::string& job_id);

// Virtual users a search's probe replays at least (unless the spec sets sessions): a bootstrap
// over fewer users has no interval, and a probe without one can never be judged.
inline constexpr int kMinProbeSessions = 8;

// One probe of a capacity search: `repeats` runs of `tier` at `concurrency`,
// numbered from `first_repeat`.
struct ProbeCell {
  v1::Tier tier = v1::TIER_UNSPECIFIED;
  int concurrency = 0;
  int first_repeat = 1;
  int repeats = 0;
};

// The scenarios of `probes`, indexes from `first_index`: repeat by repeat, the tiers interleaved
// (GPU, CPU_RAM, NVME, GPU, ...); ids "<index>-<tier>-c<n>-r<repeat>", group "c<n>", seed +
// repeat - 1, sessions the spec's or max(n, kMinProbeSessions). Pure.
std::vector<v1::Scenario> ExpandProbes(const v1::JobSpec& spec, const std::string& job_id,
                                       int first_index, const std::vector<ProbeCell>& probes);

// FAN_OUT_EACH: the matrix once per agent, in `agent_ids` order, each scenario
// pinned to its agent (Scenario.agent_id) and compared only with its agent's: ids
// "<index>-<tier>-c<concurrency>@<agent>" ("03-gpu-c4@h200-a"), groups "c<concurrency>@<agent>",
// indexes running on across agents. Pure.
std::vector<v1::Scenario> ExpandScenariosOnAgents(const v1::JobSpec& spec,
                                                  const std::string& job_id,
                                                  const std::vector<std::string>& agent_ids);

// The spec's tiers in canonical order (GPU, CPU_RAM, NVME), once each.
std::vector<v1::Tier> CanonicalTiers(const v1::JobSpec& spec);

// "gpu", "cpu-ram", "nvme": the tier as it appears in ids and file names.
std::string TierSlug(v1::Tier tier);

}  // namespace kvbench::spec
