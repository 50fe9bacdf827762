#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "agent/link/event_spool.h"
#include "agent/link/executor_scenario_runner.h"
#include "agent/local/local_job_run.h"
#include "common/daemon/folder_lock.h"
#include "kvbench/v1/agent.pb.h"

namespace kvbench::agent {

// `kvctl run`'s embedded agent (DESIGN.md: an embedded controller and agent): the agent's real
// ScenarioRunner (ExecutorScenarioRunner on the one ScenarioEnvironmentFactory) with kvctl run's
// local choices (LocalJobRun::Environments), its event spool and the capabilities it registers
// with. kvctl connects it to the embedded JobManager through a ControllerLink. Scenario files go
// to <out_dir>/<job_id>/<scenario_id>/; the spool lives in <out_dir>/.run/<job_id>.spool and is
// removed with the agent.
class LocalAgent {
 public:
  // The agent id a local run's scenarios are assigned to (job.json's ScenarioStatus.agent_id).
  static constexpr char kAgentId[] = "local";

  // Locks <out_dir>/.run for this run: FAILED_PRECONDITION naming the other kvctl run of the same
  // --out folder, whose replicas a second run's orphan sweep would kill. Taken before the job is
  // submitted, so a refused run leaves nothing behind.
  static absl::StatusOr<FolderLock> LockRunDir(const LocalRunOptions& options);
  // Makes the job's folder, kills what a crashed earlier run of that --out folder left behind
  // (pid files in <out_dir>/.run, which `run_dir_lock` from LockRunDir holds for as long as this
  // agent lives) and adopts orphaned grandchildren. Errors name the profiles, folder or spool
  // that cannot be used.
  static absl::StatusOr<std::unique_ptr<LocalAgent>> Create(const LocalRunOptions& options,
                                                            const std::string& job_id,
                                                            FolderLock run_dir_lock);
  // Shutdown(), then removes the spool.
  ~LocalAgent();
  LocalAgent(const LocalAgent&) = delete;
  LocalAgent& operator=(const LocalAgent&) = delete;

  ScenarioRunner* runner() const { return runner_.get(); }
  EventSpool* spool() const { return spool_.get(); }
  // What this machine offers (node_capabilities.h), agent id kAgentId.
  const v1::AgentCapabilities& capabilities() const { return capabilities_; }
  Clock* clock() const { return clock_; }

  // Cancels the running scenario, if any, and waits for its teardown. Idempotent.
  void Shutdown();

 private:
  LocalAgent(FolderLock run_dir_lock, std::string spool_dir,
             std::unique_ptr<ExecutorScenarioRunner> runner, std::unique_ptr<EventSpool> spool,
             v1::AgentCapabilities capabilities, Clock* clock);

  const FolderLock run_dir_lock_;  // one kvctl run per --out folder at a time
  const std::string spool_dir_;
  const std::unique_ptr<ExecutorScenarioRunner> runner_;
  const std::unique_ptr<EventSpool> spool_;
  const v1::AgentCapabilities capabilities_;
  Clock* const clock_;
};

}  // namespace kvbench::agent
