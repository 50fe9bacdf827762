#include "agent/local/local_agent.h"

#include <sys/prctl.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "agent/link/node_capabilities.h"
#include "agent/scenario/scenario_wiring.h"
#include "agent/supervisor/supervisor.h"
#include "agent/work_dir_layout.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {

absl::StatusOr<FolderLock> LocalAgent::LockRunDir(const LocalRunOptions& options) {
  return FolderLock::Acquire(LocalJobRun::RunDir(options), "kvctl run");
}

absl::StatusOr<std::unique_ptr<LocalAgent>> LocalAgent::Create(const LocalRunOptions& options,
                                                               const std::string& job_id,
                                                               FolderLock run_dir_lock) {
  const std::string job_dir = absl::StrCat(options.out_dir, "/", job_id);
  KV_ASSIGN_OR_RETURN(std::unique_ptr<ScenarioEnvironmentFactory> environments,
                      LocalJobRun::Environments(options, job_dir));
  // Like kv-agent, adopt what children leave behind (their orphans are reaped, not zombies).
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Pid files live beside all runs of this --out folder, so a run kills what a crashed earlier
  // run left behind (its replicas would hold ports, GPUs and memory) — never what a run still
  // going in the same folder started (`run_dir_lock`: one kvctl run per --out folder at a time).
  if (const int orphans = Supervisor::KillOrphans(LocalJobRun::RunDir(options),
                                                  environments->clock(), environments->sleeper());
      orphans > 0) {
    KV_LOG(WARNING) << "killed processes a previous kvctl run left behind count=" << orphans;
  }
  // A shared --nvme-cache-dir keeps what a crashed run's NVME scenario left: remove this --out
  // folder's (the default pool lives in the job's own folder).
  if (const int pools = SweepNvmePools(options.nvme_cache_dir, LocalJobRun::RunDir(options));
      pools > 0) {
    KV_LOG(WARNING) << "removed NVMe pool dirs a previous kvctl run left count=" << pools;
  }
  v1::AgentConfig config;
  config.set_agent_id(kAgentId);
  for (int gpu : options.gpus) {
    v1::GpuInfo* info = config.add_gpus();
    info->set_index(gpu);
    info->set_vendor(options.gpu_vendor);
  }
  config.set_nvme_cache_dir(options.nvme_cache_dir.empty() ? absl::StrCat(job_dir, "/nvme-cache")
                                                           : options.nvme_cache_dir);
  v1::AgentCapabilities capabilities = DiscoverCapabilities(config, environments->profiles());
  const std::string spool_dir = absl::StrCat(LocalJobRun::RunDir(options), "/", job_id, ".spool");
  KV_ASSIGN_OR_RETURN(std::unique_ptr<EventSpool> spool, EventSpool::Open(spool_dir));
  Clock* clock = environments->clock();
  std::unique_ptr<ExecutorScenarioRunner> runner = ExecutorScenarioRunner::CreateWith(
      std::move(environments), [out_dir = options.out_dir](const v1::ScenarioAttempt& attempt) {
        return absl::StrCat(out_dir, "/", attempt.job_id(), "/",
                            AttemptDirName(attempt.scenario_id(), attempt.attempt()));
      });
  return std::unique_ptr<LocalAgent>(new LocalAgent(std::move(run_dir_lock), spool_dir,
                                                    std::move(runner), std::move(spool),
                                                    std::move(capabilities), clock));
}

LocalAgent::LocalAgent(FolderLock run_dir_lock, std::string spool_dir,
                       std::unique_ptr<ExecutorScenarioRunner> runner,
                       std::unique_ptr<EventSpool> spool, v1::AgentCapabilities capabilities,
                       Clock* clock)
    : run_dir_lock_(std::move(run_dir_lock)),
      spool_dir_(std::move(spool_dir)),
      runner_(std::move(runner)),
      spool_(std::move(spool)),
      capabilities_(std::move(capabilities)),
      clock_(clock) {}

LocalAgent::~LocalAgent() {
  Shutdown();
  std::error_code error;
  std::filesystem::remove_all(spool_dir_, error);
}

void LocalAgent::Shutdown() { runner_->Shutdown(); }

}  // namespace kvbench::agent
