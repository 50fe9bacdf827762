#include "agent/local/local_run_config.h"

#include "absl/strings/str_cat.h"
#include "agent/datasets/dataset_resolver.h"
#include "agent/scenario/bundled_folders.h"
#include "agent/scenario/program_resolver.h"
#include "agent/tiers/tier_renderer.h"

namespace kvbench::agent {

v1::AgentConfig LocalRunConfig::AgentConfig(const LocalRunOptions& options,
                                            const std::string& job_id) {
  v1::AgentConfig config;
  config.set_agent_id(kAgentId);
  config.set_profiles_dir(FindProfilesDir(options.profiles_dir));
  // The demo's and the user's own datasets come through the seams (DatasetRoots); the mirror is
  // read in place, never pulled into a cache.
  config.set_dataset_mirror(options.dataset_mirror);
  config.set_nvme_cache_dir(options.nvme_cache_dir.empty()
                                ? absl::StrCat(options.out_dir, "/", job_id, "/nvme-cache")
                                : options.nvme_cache_dir);
  for (int gpu : options.gpus) {
    v1::GpuInfo* info = config.add_gpus();
    info->set_index(gpu);
    info->set_vendor(options.gpu_vendor);
  }
  *config.mutable_model_roots() = {options.model_roots.begin(), options.model_roots.end()};
  config.set_scenario_retention_days(options.scenario_retention_days);
  return config;
}

AgentSeams LocalRunConfig::Seams(const LocalRunOptions& options, const std::string& job_id) {
  AgentSeams seams;
  seams.layout = WorkDirLayout::ForLocalRun(options.out_dir, job_id);
  if (std::string bundled = BundledFolders(ProgramResolver::SelfBinDir()).ExampleDatasetsDir();
      !bundled.empty()) {
    seams.extra_dataset_roots.push_back(std::move(bundled));
  }
  seams.allow_user_dataset_paths = true;
  return seams;
}

std::string LocalRunConfig::FindProfilesDir(const std::string& configured) {
  if (!configured.empty()) return configured;
  return BundledFolders(ProgramResolver::SelfBinDir()).ProfilesDir();
}

std::string LocalRunConfig::Routing(const v1::JobSpec& spec, v1::Tier tier) {
  return tiers::ScenarioRouting(spec, tier);
}

std::vector<std::string> LocalRunConfig::DatasetRoots(const std::string& dataset_mirror) {
  // The user's mirror and $KV_DATASET_MIRROR first, then the demo's datasets shipped beside the
  // binaries (so the demo runs from any working directory).
  std::vector<std::string> roots = datasets::DatasetResolver::Roots("", dataset_mirror);
  const AgentSeams seams = Seams(LocalRunOptions{}, "");
  roots.insert(roots.end(), seams.extra_dataset_roots.begin(), seams.extra_dataset_roots.end());
  return roots;
}

}  // namespace kvbench::agent
