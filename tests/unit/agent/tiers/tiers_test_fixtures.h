#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "agent/tiers/profile_set.h"
#include "agent/tiers/tier_renderer.h"

namespace kvbench::agent::tiers::testing {

inline constexpr char kModel[] = "meta-llama/Llama-3.1-8B-Instruct";
inline constexpr char kNvmeDir[] = "/var/lib/kvbench/nvme/l2";
// The node's GPUs; every job below runs tensor_parallel_size 2.
inline const std::vector<int> kNodeGpus = {0, 1, 2, 3, 4, 5, 6, 7};

// An effective job spec (defaults applied): cpu_pool_gb 8, nvme_pool_gb 64, tp 2, seed 7,
// engine_overrides num_gpu_blocks 4096, gpu_memory_utilization 0.9, max_model_len 32768,
// sim_time_scale 0.01.
v1::JobSpec TestJob(v1::Engine engine, v1::Vendor build, int replicas);
v1::Scenario TestScenario(v1::Tier tier);
// Cache server 127.0.0.1:5555 (HTTP 8080); replica i on 127.0.0.(2+i):8000; proxy
// 127.0.0.1:18080, admin 12019; GPUs split from kNodeGpus by 2.
ScenarioWiring TestWiring(int replicas);

// deploy/profiles, loaded once.
const ProfileSet& ShippedProfiles();
// The profile `name` of ShippedProfiles().
const v1::Profile& Shipped(const std::string& name);

// "a b c" → {"a", "b", "c"}: expected command lines written as text.
std::vector<std::string> Words(absl::string_view text);
// {A: 1, B: 2} → "A=1;B=2".
std::string EnvText(const std::map<std::string, std::string>& env);

}  // namespace kvbench::agent::tiers::testing
