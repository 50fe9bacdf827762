#include "agent/local/local_job_run.h"

#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "agent/datasets/dataset_resolver.h"
#include "agent/scenario/bundled_folders.h"
#include "agent/scenario/program_resolver.h"
#include "agent/tiers/profile_set.h"
#include "agent/tiers/tier_renderer.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {
std::string LocalJobRun::FindProfilesDir(const std::string& configured) {
  if (!configured.empty()) return configured;
  return BundledFolders(ProgramResolver::SelfBinDir()).ProfilesDir();
}

std::string LocalJobRun::Routing(const v1::JobSpec& spec, v1::Tier tier) {
  return tiers::ScenarioRouting(spec, tier);
}

std::vector<std::string> LocalJobRun::DatasetRoots(const std::string& dataset_mirror) {
  // The user's mirror and $KV_DATASET_MIRROR first, then the demo's datasets shipped beside the
  // binaries (so the demo runs from any working directory).
  std::vector<std::string> roots = datasets::DatasetResolver::Roots("", dataset_mirror);
  if (std::string bundled = BundledFolders(ProgramResolver::SelfBinDir()).ExampleDatasetsDir();
      !bundled.empty()) {
    roots.push_back(std::move(bundled));
  }
  return roots;
}

std::string LocalJobRun::RunDir(const LocalRunOptions& options) {
  return absl::StrCat(options.out_dir, "/.run");
}

absl::StatusOr<std::unique_ptr<ScenarioEnvironmentFactory>> LocalJobRun::Environments(
    const LocalRunOptions& options, const std::string& job_dir) {
  ScenarioEnvironmentOptions environment;
  KV_ASSIGN_OR_RETURN(environment.profiles,
                      tiers::ProfileSet::LoadDir(FindProfilesDir(options.profiles_dir)));
  std::error_code error;
  std::filesystem::create_directories(job_dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", job_dir, ": ", error.message()));
  }
  environment.dataset_roots = DatasetRoots(options.dataset_mirror);
  environment.allow_user_dataset_paths = true;
  environment.run_dir = RunDir(options);
  environment.nvme_cache_dir = options.nvme_cache_dir.empty() ? absl::StrCat(job_dir, "/nvme-cache")
                                                              : options.nvme_cache_dir;
  environment.gpus = options.gpus;
  environment.model_roots = options.model_roots;
  return ScenarioEnvironmentFactory::Create(std::move(environment));
}

}  // namespace kvbench::agent
