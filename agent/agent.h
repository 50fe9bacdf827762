#pragma once

#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <memory>

#include "absl/status/statusor.h"
#include "agent/tiers/profile_set.h"
#include "agent/work_dir_layout.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::agent {

// The per-node agent: owns the work dir and, in later stages, the supervisor, the sampler, the
// runner and the controller link. Everything mutable is touched on the executor's thread only.
//
// Members are declared in dependency order (config, borrowed seams, layout, metrics); Shutdown()
// undoes Start() in reverse.
class Agent {
 public:
  // `clock`, `executor` and `registry` are borrowed and must outlive the Agent. `config` must be
  // validated and completed (LoadAgentConfig). FAILED_PRECONDITION when the work dir cannot be
  // created; INVALID_ARGUMENT / NOT_FOUND naming profiles_dir when its profiles do not load.
  // Kills what a previous agent left running (pid files in the work dir's run/).
  static absl::StatusOr<std::unique_ptr<Agent>> Create(v1::AgentConfig config, Clock* clock,
                                                       Executor* executor,
                                                       prometheus::Registry* registry);

  // Begins periodic work (the uptime gauge now; heartbeats and scenarios later).
  void Start();
  // Cancels everything Start() began. Idempotent.
  void Shutdown();

  const v1::AgentConfig& config() const { return config_; }
  const WorkDirLayout& layout() const { return layout_; }
  const tiers::ProfileSet& profiles() const { return profiles_; }

 private:
  // How often the agent refreshes its own gauges.
  static constexpr absl::Duration kHousekeepingPeriod = absl::Seconds(5);

  Agent(v1::AgentConfig config, tiers::ProfileSet profiles, Clock* clock, Executor* executor,
        prometheus::Registry* registry);
  void Housekeeping();

  const v1::AgentConfig config_;
  const tiers::ProfileSet profiles_;
  Clock* const clock_;
  Executor* const executor_;
  const WorkDirLayout layout_;
  const absl::Duration start_monotonic_;
  prometheus::Gauge& uptime_seconds_;
  prometheus::Gauge& scenarios_running_;
  TaskId housekeeping_task_;
};

}  // namespace kvbench::agent
