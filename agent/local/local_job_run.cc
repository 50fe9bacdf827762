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
#include "common/http/curl_http_client.h"
#include "common/log/logging.h"
#include "common/net/port_allocator.h"
#include "common/process/posix_process_launcher.h"
#include "common/status/status_macros.h"
#include "common/time/clock.h"

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
  KV_ASSIGN_OR_RETURN(tiers::ProfileSet profiles,
                      tiers::ProfileSet::LoadDir(FindProfilesDir(options.profiles_dir)));
  const std::string job_dir = absl::StrCat(options.out_dir, "/", job_id);
  std::error_code error;
  std::filesystem::create_directories(job_dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", job_dir, ": ", error.message()));
  }
  // Like the agent, adopt what children leave behind (their orphans are reaped, not zombies).
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // The embedded agent's real seams (this is kvctl run's composition root).
  PosixProcessLauncher launcher;
  KV_ASSIGN_OR_RETURN(std::unique_ptr<CurlHttpClient> http, CurlHttpClient::Create());
  RealClock clock;
  PortAllocator ports;
  ProgramResolver programs(ProgramResolver::SelfBinDir());
  datasets::DatasetResolver datasets(DatasetRoots(options.dataset_mirror),
                                     /*allow_user_paths=*/true);
  // Pid files live beside all runs of this --out folder, so a run kills what a crashed earlier
  // run left behind (its replicas would hold ports, GPUs and memory).
  const std::string run_dir = absl::StrCat(options.out_dir, "/.run");
  if (const int orphans = Supervisor::KillOrphans(run_dir); orphans > 0) {
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
    ScenarioEnvironment env;
    env.launcher = &launcher;
    env.http = http.get();
    env.clock = &clock;
    env.ports = &ports;
    env.profiles = &profiles;
    env.programs = &programs;
    env.datasets = &datasets;
    env.scenario_dir = absl::StrCat(job_dir, "/", scenario.scenario_id());
    env.run_dir = run_dir;
    env.nvme_cache_dir = options.nvme_cache_dir.empty() ? absl::StrCat(job_dir, "/nvme-cache")
                                                        : options.nvme_cache_dir;
    env.gpus = options.gpus;
    env.stop_grace = absl::Seconds(options.stop_grace_s);
    env.cancel = cancel;
    ScenarioExecutor executor(env, spec, scenario, [&](v1::Event event) {
      event.set_job_id(job_id);
      event.set_scenario_id(scenario.scenario_id());
      event.set_unix_ms(absl::ToUnixMillis(clock.Now()));
      on_event(event);
    });
    absl::StatusOr<v1::ScenarioResult> result = executor.Run();
    outcome.status = result.status();
    if (result.ok()) outcome.result = *std::move(result);
    outcomes.push_back(std::move(outcome));
  }
  return outcomes;
}

}  // namespace kvbench::agent
