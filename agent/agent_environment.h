#pragma once

#include "agent/agent_seams.h"
#include "agent/preflight/preflight.h"
#include "agent/scenario_environment_factory.h"
#include "agent/tiers/profile_set.h"
#include "agent/work_dir_layout.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::agent {

// How an agent's config, layout and seams become what its scenarios run with and what its
// preflight checks, in one place, so the two cannot disagree: pid files in the layout's run dir,
// datasets from the config's cache and mirror (then the seams' extra folders), pulls only into a
// configured cache, the config's NVMe pool, model roots, GPUs and stop grace, the seams' clock
// and sleeper.
ScenarioEnvironmentOptions AgentEnvironmentOptions(const v1::AgentConfig& config,
                                                   const WorkDirLayout& layout,
                                                   const tiers::ProfileSet& profiles,
                                                   const AgentSeams& seams);

preflight::PreflightInput AgentPreflightInput(const v1::AgentConfig& config,
                                              const AgentSeams& seams);

}  // namespace kvbench::agent
