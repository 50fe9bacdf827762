#pragma once

// What ScenarioDriver resolved for one scenario (its private Plan) and the names of the
// scenario's processes, shared by scenario_driver.cc (resolve, start, collect, tear down) and
// scenario_driver_replay.cc (the warm-up gate, the replay loop and its sampling). Included by
// those two files only.

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/sampler/sampler.h"
#include "agent/scenario/scenario_driver.h"
#include "agent/scenario/scenario_releases.h"
#include "agent/scenario/scenario_wiring.h"

namespace kvbench::agent {

// Names of the scenario's processes (logs/<name>.log, run/<name>.pid).
inline constexpr const char* kCacheServerName = sampler::kCacheServerSource;
inline constexpr char kProxyName[] = "caddy";
inline constexpr char kRunnerName[] = "kv-runner";
// kv-runner's exit code when a stop signal cut it short (output still complete).
inline constexpr int kRunnerStoppedExitCode = 7;

struct ScenarioDriver::Plan {
  const v1::Profile* engine = nullptr;
  const v1::Profile* cache = nullptr;  // CPU_RAM / NVME only
  std::vector<std::string> engine_command;
  std::vector<std::string> cache_command;
  std::string caddy_program;  // replicas >= 2 only
  std::string runner_program;
  std::string dataset_path;
  tiers::ScenarioWiring wiring;
  std::string target_url;                    // Caddy's front, or the single replica
  std::optional<ScenarioReleases> releases;  // checked in Resolve
};

// replica-0, replica-1, ...: a replica's process and sample source name.
inline std::string ReplicaName(int index) { return absl::StrCat("replica-", index); }

}  // namespace kvbench::agent
