#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "agent/datasets/dataset_resolver.h"
#include "agent/datasets/registry/dataset_provisioner.h"
#include "agent/link/scenario_runner.h"
#include "agent/scenario/program_resolver.h"
#include "agent/scenario/scenario_executor.h"
#include "agent/tiers/profile_set.h"
#include "agent/work_dir_layout.h"
#include "common/http/curl_http_client.h"
#include "common/net/port_allocator.h"
#include "common/process/posix_process_launcher.h"
#include "common/time/clock.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::agent {

// Default grace between SIGTERM and SIGKILL for supervised children (AgentConfig).
inline constexpr absl::Duration kDefaultChildStopGrace = absl::Seconds(30);

// The real ScenarioRunner: each assignment runs through a ScenarioExecutor on a thread of its
// own, with the agent's real seams (the environment composed like kvctl run's, local_job_run.cc)
// and its directories: the scenario dir from the work dir layout, pid files in its run/, datasets
// only from the configured cache and mirror (no user paths: a spec cannot name a path outside the
// agent's own directories).
class ExecutorScenarioRunner : public ScenarioRunner {
 public:
  // `profiles` and `clock` are borrowed and must outlive the runner. UNAVAILABLE when curl
  // cannot be initialised.
  static absl::StatusOr<std::unique_ptr<ExecutorScenarioRunner>> Create(
      const v1::AgentConfig& config, const WorkDirLayout& layout, const tiers::ProfileSet* profiles,
      Clock* clock);
  // Shutdown().
  ~ExecutorScenarioRunner() override;

  absl::Status Start(const v1::Assignment& assignment, EventSink sink) override;
  void Cancel(const std::string& scenario_id) override;
  std::string running_scenario_id() const override;
  // Cancels the running scenario, if any, and waits until its thread has finished (teardown
  // included). Idempotent.
  void Shutdown();

 private:
  static std::string MirrorOf(const v1::AgentConfig& config);
  ExecutorScenarioRunner(const v1::AgentConfig& config, WorkDirLayout layout,
                         const tiers::ProfileSet* profiles, Clock* clock,
                         std::unique_ptr<CurlHttpClient> http);
  ScenarioEnvironment Environment(const v1::Scenario& scenario);
  void RunScenario(const v1::Assignment& assignment, EventSink sink);

  // The real seams, in dependency order.
  const WorkDirLayout layout_;
  const tiers::ProfileSet* const profiles_;
  Clock* const clock_;
  const std::string nvme_cache_dir_;
  const std::vector<int> gpus_;
  const absl::Duration stop_grace_;
  PosixProcessLauncher launcher_;
  std::unique_ptr<CurlHttpClient> http_;
  PortAllocator ports_;
  ProgramResolver programs_;
  datasets::DatasetResolver datasets_;
  datasets::DatasetProvisioner provisioner_;

  mutable std::mutex mu_;
  std::string running_;                   // guarded by mu_
  ScenarioExecutor* executor_ = nullptr;  // guarded by mu_; the running scenario's
  bool cancel_requested_ = false;         // guarded by mu_; for the running scenario
  bool shut_down_ = false;                // guarded by mu_
  std::thread thread_;                    // guarded by mu_
};

}  // namespace kvbench::agent
