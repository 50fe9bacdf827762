#pragma once

#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "agent/link/controller_link.h"
#include "agent/link/event_spool.h"
#include "agent/link/executor_scenario_runner.h"
#include "agent/preflight/preflight.h"
#include "agent/preflight/preflight_monitor.h"
#include "agent/preflight/preflight_probes.h"
#include "agent/tiers/profile_set.h"
#include "agent/work_dir_layout.h"
#include "common/daemon/folder_lock.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "common/time/sleeper.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::agent {

// The per-node agent: owns the work dir, the event spool, the scenario runner and, when a
// controller is configured, the controller link. Its own mutable state and the link's are
// touched on the executor's thread only; the runner has its own threads.
//
// Members are declared in dependency order (config, borrowed seams, layout, metrics, preflight,
// spool, runner, link); Shutdown() undoes Start() in reverse.
class Agent {
 public:
  // `clock`, `executor` and `registry` are borrowed and must outlive the Agent. `config` must be
  // validated and completed (LoadAgentConfig). FAILED_PRECONDITION when the work dir cannot be
  // created; INVALID_ARGUMENT / NOT_FOUND naming profiles_dir when its profiles do not load.
  // Kills what a previous agent left running (pid files in the work dir's run/). Opens the event
  // spool (FAILED_PRECONDITION naming it when it cannot) and, when controller_address is set,
  // makes the controller link (errors naming the TLS files that do not load).
  // Runs the preflight (agent/preflight/preflight.h) through `probes`: its checks and the
  // releases it probed go into the registered capabilities, its failures are logged, and while
  // idle the cheap checks are re-run at most every preflight::kRecheckPeriod, the ones that do
  // not pass sent with every heartbeat. A config without `gpus` offers (and pins) the GPUs NVML
  // finds.
  // `clock`, `sleeper` (the scenarios' start-up waits and the orphans' kill), `executor`,
  // `registry` and `probes` are borrowed and must outlive the agent.
  static absl::StatusOr<std::unique_ptr<Agent>> Create(v1::AgentConfig config, Clock* clock,
                                                       Sleeper* sleeper, Executor* executor,
                                                       prometheus::Registry* registry,
                                                       preflight::PreflightProbes* probes);

  // The profiles of `config`'s profiles_dir, as Create loads them (and `kv-agent
  // --validate_config` checks them, so that it refuses what a start would): INVALID_ARGUMENT /
  // NOT_FOUND naming profiles_dir and its path when they do not load.
  static absl::StatusOr<tiers::ProfileSet> LoadProfiles(const v1::AgentConfig& config);

  // Stops the link and the runner if Shutdown() was not called (the runner's events go through
  // the link, so it must not outlive it).
  ~Agent();

  // Begins periodic work and dials the controller (when configured).
  void Start();
  // Stops the controller link, cancels the running scenario and waits until it has torn down;
  // then cancels everything else Start() began. Idempotent.
  void Shutdown();

  const v1::AgentConfig& config() const { return config_; }
  const WorkDirLayout& layout() const { return layout_; }
  const tiers::ProfileSet& profiles() const { return profiles_; }
  // Null without a controller_address.
  const ControllerLink* link() const { return link_.get(); }
  // The latest preflight (the start's, cheap checks re-run while idle).
  const preflight::PreflightMonitor& preflight() const { return *preflight_monitor_; }
  // What the start's preflight probed.
  const std::vector<v1::ComponentVersion>& versions() const { return versions_; }

 private:
  // How often the agent refreshes its own gauges.
  static constexpr absl::Duration kHousekeepingPeriod = absl::Seconds(5);
  // How often expired scenario folders are looked for (and once at start).
  static constexpr absl::Duration kPrunePeriod = absl::Hours(1);

  Agent(v1::AgentConfig config, FolderLock work_dir_lock, tiers::ProfileSet profiles, Clock* clock,
        Sleeper* sleeper, Executor* executor, prometheus::Registry* registry,
        preflight::PreflightProbes* probes, preflight::PreflightReport at_start);
  // The spool, the runner and the link (the parts with failing construction).
  absl::Status CreateLinkParts();
  void Housekeeping();
  // Asks for a re-run of the cheap preflight checks when idle and kRecheckPeriod has passed.
  void MaybeRecheckPreflight();
  bool Idle() const;
  // Removes scenario folders past scenario_retention_days, never the running attempt's.
  void PruneScenarios();

  const v1::AgentConfig config_;
  const FolderLock work_dir_lock_;  // one agent per work dir, for as long as this one lives
  const tiers::ProfileSet profiles_;
  Clock* const clock_;
  Sleeper* const sleeper_;
  Executor* const executor_;
  const WorkDirLayout layout_;
  const absl::Duration start_monotonic_;
  std::optional<absl::Duration> last_prune_;  // monotonic; only the housekeeping task touches it
  const preflight::Preflight preflight_;      // over profiles_ and the borrowed probes
  const std::vector<v1::ComponentVersion> versions_;
  const std::unique_ptr<preflight::PreflightMonitor> preflight_monitor_;
  absl::Duration last_preflight_;  // monotonic, of the start or the last re-run requested
  prometheus::Gauge& uptime_seconds_;
  prometheus::Gauge& scenarios_running_;
  std::unique_ptr<EventSpool> spool_;
  std::unique_ptr<ExecutorScenarioRunner> runner_;
  std::unique_ptr<ControllerLink> link_;  // null without a controller_address
  TaskId housekeeping_task_;
  bool shut_down_ = false;
};

}  // namespace kvbench::agent
