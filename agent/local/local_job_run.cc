#include "agent/local/local_job_run.h"

#include <sys/prctl.h>

#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "agent/datasets/dataset_resolver.h"
#include "agent/scenario/bundled_folders.h"
#include "agent/scenario/program_resolver.h"
#include "agent/scenario/scenario_executor.h"
#include "agent/supervisor/supervisor.h"
#include "agent/tiers/profile_set.h"
#include "agent/tiers/tier_renderer.h"
#include "common/log/logging.h"
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

absl::StatusOr<std::vector<LocalScenarioOutcome>> LocalJobRun::Run(
    const v1::JobSpec& spec, const std::vector<v1::Scenario>& scenarios, const std::string& job_id,
    const LocalRunOptions& options, const EventCallback& on_event, std::atomic<bool>* cancel) {
  const std::string job_dir = absl::StrCat(options.out_dir, "/", job_id);
  KV_ASSIGN_OR_RETURN(std::unique_ptr<ScenarioEnvironmentFactory> environments,
                      Environments(options, job_dir, cancel));
  // Like the agent, adopt what children leave behind (their orphans are reaped, not zombies).
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Pid files live beside all runs of this --out folder, so a run kills what a crashed earlier
  // run left behind (its replicas would hold ports, GPUs and memory).
  if (const int orphans =
          Supervisor::KillOrphans(RunDir(options), environments->clock(), environments->sleeper());
      orphans > 0) {
    KV_LOG(WARNING) << "killed processes a previous kvctl run left behind count=" << orphans;
  }

  std::vector<LocalScenarioOutcome> outcomes;
  for (const v1::Scenario& scenario : scenarios) {
    LocalScenarioOutcome outcome;
    outcome.scenario = scenario;
    if (cancel != nullptr && cancel->load()) {
      outcome.status = absl::CancelledError("not started: the run was cancelled");
      outcomes.push_back(std::move(outcome));
      continue;
    }
    ScenarioExecutor executor(
        environments->ForScenario(absl::StrCat(job_dir, "/", scenario.scenario_id())), spec,
        scenario, [&](v1::Event event) {
          event.set_job_id(job_id);
          event.set_scenario_id(scenario.scenario_id());
          event.set_unix_ms(absl::ToUnixMillis(environments->clock()->Now()));
          on_event(event);
        });
    absl::StatusOr<v1::ScenarioResult> result = executor.Run();
    outcome.status = result.status();
    if (result.ok()) outcome.result = *std::move(result);
    outcomes.push_back(std::move(outcome));
  }
  return outcomes;
}

std::string LocalJobRun::RunDir(const LocalRunOptions& options) {
  return absl::StrCat(options.out_dir, "/.run");
}

absl::StatusOr<std::unique_ptr<ScenarioEnvironmentFactory>> LocalJobRun::Environments(
    const LocalRunOptions& options, const std::string& job_dir, std::atomic<bool>* cancel) {
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
  environment.cancel = cancel;
  return ScenarioEnvironmentFactory::Create(std::move(environment));
}

}  // namespace kvbench::agent
