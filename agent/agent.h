#pragma once

#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "agent/agent_seams.h"
#include "agent/link/controller_link.h"
#include "agent/link/event_spool.h"
#include "agent/link/link_transport.h"
#include "agent/preflight/preflight.h"
#include "agent/preflight/preflight_monitor.h"
#include "agent/preflight/preflight_probes.h"
#include "agent/scenario/thread_scenario_worker.h"
#include "agent/tiers/profile_set.h"
#include "agent/work_dir_layout.h"
#include "common/daemon/folder_lock.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::agent {

// The per-node agent (kv-agent, and the one `kvctl run` embeds): owns its folders, the event spool,
// the scenario worker and, when a controller is configured, the controller link. Its own mutable
// state and the link's are touched on the executor's thread only; the worker has its own threads.
//
// Members are declared in dependency order (config, borrowed seams, layout, metrics, preflight,
// spool, worker, link); Shutdown() undoes Start() in reverse.
class Agent {
 public:
  // The one start-up of an agent, for kv-agent (main.cc) and `kvctl run` alike. `config` must be
  // validated and completed (LoadAgentConfig; kvctl run: agent/local/local_run_config.h).
  // In order: locks the layout's root (FAILED_PRECONDITION naming the holder: one agent per
  // folder), makes it and its folders (the root private, 0700), adopts orphaned grandchildren
  // (subreaper), loads the profiles (INVALID_ARGUMENT / NOT_FOUND naming profiles_dir), kills
  // what a previous agent of this layout left running (pid files in its run dir) and the NVMe
  // pools it left, runs the preflight (agent/preflight/preflight.h) through `seams.probes` — its
  // checks and the releases it probed go into the registered capabilities, its failures are
  // logged, and while idle the cheap checks are re-run at most every preflight::kRecheckPeriod,
  // the ones that do not pass sent with every heartbeat — and offers (and pins) the GPUs NVML
  // finds when the config lists none. Then opens the event spool (FAILED_PRECONDITION naming it)
  // and the worker, and makes the controller link: over `transport` when given (kvctl run's
  // in-process link to its embedded controller), else over gRPC to controller_address (errors
  // naming the TLS files that do not load); no link without either.
  static absl::StatusOr<std::unique_ptr<Agent>> Create(
      v1::AgentConfig config, AgentSeams seams, std::unique_ptr<LinkTransport> transport = nullptr);

  // The profiles of `config`'s profiles_dir, as Create loads them (and `kv-agent
  // --validate_config` checks them, so that it refuses what a start would): INVALID_ARGUMENT /
  // NOT_FOUND naming profiles_dir and its path when they do not load.
  static absl::StatusOr<tiers::ProfileSet> LoadProfiles(const v1::AgentConfig& config);

  // Shutdown(), if it was not called (the executor must still be there).
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

  // What the agent owns of its seams when the process lent none (AgentSeams' defaults).
  struct OwnSeams {
    std::unique_ptr<prometheus::Registry> registry;
    std::unique_ptr<preflight::PreflightProbes> probes;
  };
  // Fills the seams the process left null with the agent's own.
  static absl::StatusOr<OwnSeams> DefaultSeams(AgentSeams* seams);

  Agent(v1::AgentConfig config, FolderLock work_dir_lock, WorkDirLayout layout,
        tiers::ProfileSet profiles, OwnSeams own, AgentSeams seams,
        preflight::PreflightReport at_start);
  // The spool, the worker and the link (the parts with failing construction).
  absl::Status CreateLinkParts(std::unique_ptr<LinkTransport> transport);
  void Housekeeping();
  // Asks for a re-run of the cheap preflight checks when idle and kRecheckPeriod has passed.
  void MaybeRecheckPreflight();
  bool Idle() const;
  // Removes scenario folders past scenario_retention_days, never the running attempt's.
  void PruneScenarios();

  const v1::AgentConfig config_;
  const FolderLock work_dir_lock_;  // one agent per layout root, for as long as this one lives
  const WorkDirLayout layout_;
  const tiers::ProfileSet profiles_;
  const OwnSeams own_seams_;
  const AgentSeams seams_;  // the process's, or own_seams_'s
  Clock* const clock_;
  Executor* const executor_;
  const absl::Duration start_monotonic_;
  std::optional<absl::Duration> last_prune_;  // monotonic; only the housekeeping task touches it
  const preflight::Preflight preflight_;      // over profiles_ and the seams' probes
  const std::vector<v1::ComponentVersion> versions_;
  const std::unique_ptr<preflight::PreflightMonitor> preflight_monitor_;
  absl::Duration last_preflight_;  // monotonic, of the start or the last re-run requested
  prometheus::Gauge& uptime_seconds_;
  prometheus::Gauge& scenarios_running_;
  std::unique_ptr<EventSpool> spool_;
  std::unique_ptr<ThreadScenarioWorker> worker_;
  std::unique_ptr<ControllerLink> link_;  // null without a controller_address or a transport
  TaskId housekeeping_task_;
  bool shut_down_ = false;
};

}  // namespace kvbench::agent
