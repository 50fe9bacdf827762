#include "agent/agent_environment.h"

#include <cstdlib>

#include "agent/datasets/dataset_resolver.h"

namespace kvbench::agent {
namespace {

std::vector<int> GpuIndices(const v1::AgentConfig& config) {
  std::vector<int> gpus;
  for (const v1::GpuInfo& gpu : config.gpus()) gpus.push_back(gpu.index());
  return gpus;
}

// Where registry datasets come from: the config's mirror, else $KV_DATASET_MIRROR, else upstream.
std::string MirrorOf(const v1::AgentConfig& config) {
  if (!config.dataset_mirror().empty()) return config.dataset_mirror();
  const char* env = std::getenv(datasets::kDatasetMirrorEnv);
  return env == nullptr ? "" : env;
}

std::vector<std::string> DatasetRoots(const v1::AgentConfig& config, const AgentSeams& seams) {
  std::vector<std::string> roots =
      datasets::DatasetResolver::Roots(config.dataset_cache_dir(), config.dataset_mirror());
  roots.insert(roots.end(), seams.extra_dataset_roots.begin(), seams.extra_dataset_roots.end());
  return roots;
}

}  // namespace

ScenarioEnvironmentOptions AgentEnvironmentOptions(const v1::AgentConfig& config,
                                                   const WorkDirLayout& layout,
                                                   const tiers::ProfileSet& profiles,
                                                   const AgentSeams& seams) {
  ScenarioEnvironmentOptions options;
  options.profiles = profiles;
  options.dataset_roots = DatasetRoots(config, seams);
  options.allow_user_dataset_paths = seams.allow_user_dataset_paths;
  options.dataset_cache_dir = config.dataset_cache_dir();
  options.dataset_mirror = MirrorOf(config);
  options.run_dir = layout.run_dir();
  options.nvme_cache_dir = config.nvme_cache_dir();
  options.model_roots.assign(config.model_roots().begin(), config.model_roots().end());
  options.gpus = GpuIndices(config);
  if (config.child_stop_grace_s() > 0) {
    options.stop_grace = absl::Seconds(config.child_stop_grace_s());
  }
  options.clock = seams.clock;
  options.sleeper = seams.sleeper;
  return options;
}

preflight::PreflightInput AgentPreflightInput(const v1::AgentConfig& config,
                                              const AgentSeams& seams) {
  preflight::PreflightInput input = preflight::PreflightInput::ForAgentConfig(config);
  input.dataset_roots = DatasetRoots(config, seams);
  input.allow_user_dataset_paths = seams.allow_user_dataset_paths;
  return input;
}

}  // namespace kvbench::agent
