#pragma once

#include "agent/tiers/profile_set.h"
#include "kvbench/v1/agent.pb.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::agent {

// What this node offers, as the agent registers it: agent_id, hostname, version, GPUs (the
// config's, else those NVML finds; none when it finds none), cpu_memory_bytes (/proc/meminfo
// MemTotal), cpu_cores, nvme_cache_path and its free bytes (statvfs) when configured, the loaded
// profiles' names and the config's labels. Never fails: what cannot be read stays unset.
v1::AgentCapabilities DiscoverCapabilities(const v1::AgentConfig& config,
                                           const tiers::ProfileSet& profiles);

}  // namespace kvbench::agent
