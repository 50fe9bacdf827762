#pragma once

#include <prometheus/registry.h>

#include <optional>
#include <string>
#include <vector>

#include "agent/preflight/preflight_probes.h"
#include "agent/work_dir_layout.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "common/time/sleeper.h"

namespace kvbench::agent {

// What the process that runs an Agent gives it besides its AgentConfig: kv-agent's main.cc and
// `kvctl run` (which turns its flags into an AgentConfig, agent/local/local_agent_config.h) build
// one each. Every pointer is borrowed and must outlive the agent.
struct AgentSeams {
  Clock* clock = nullptr;                    // the process's one clock
  Sleeper* sleeper = nullptr;                // the scenarios' start-up waits and the orphans' kill
  Executor* executor = nullptr;              // the agent's and its link's tasks
  prometheus::Registry* registry = nullptr;  // the agent's own gauges
  preflight::PreflightProbes* probes = nullptr;
  // Where the files live; unset: kv-agent's layout under config.work_dir.
  std::optional<WorkDirLayout> layout;
  // kvctl run's choices about datasets: also found in these folders (after the config's mirror),
  // and a spec may name any file the user can read. kv-agent reads datasets only from its cache
  // and mirror.
  std::vector<std::string> extra_dataset_roots;
  bool allow_user_dataset_paths = false;
};

}  // namespace kvbench::agent
