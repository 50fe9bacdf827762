#pragma once

// What a job's scenarios ran against (ScenarioResult.versions), summarized for people:
// one entry per component, its version, and the tiers that ran each version when they differ.

#include <string>
#include <vector>

#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

struct ComponentVersions {
  std::string component;  // "vllm", "lmcache", "caddy", "kvbench", "model_config", ...
  struct Seen {
    std::string version;             // "0.33.0", "0.33.0 (simulated)"
    std::vector<std::string> tiers;  // the tiers that ran it, in the order first seen
  };
  std::vector<Seen> versions;  // one when every scenario agrees
  bool must_match = false;     // a difference invalidates the comparison (release_checks.h)
};

// The components over `results` (null entries skipped) in a fixed order: vllm, lmcache, caddy,
// kvbench, model_config, nvidia_driver, cuda, rocm, then any other as first recorded. A version
// "unknown" is shown as recorded, never compared.
std::vector<ComponentVersions> SummarizeVersions(
    const std::vector<const v1::ScenarioResult*>& results);

// "vllm 0.33.0 (simulated)" or "vllm 0.33.0 (GPU, NVME) vs 0.12.0 (CPU_RAM)".
std::string VersionsText(const ComponentVersions& component);

}  // namespace kvbench::results
