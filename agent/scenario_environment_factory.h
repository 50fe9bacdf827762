#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/config/agent_config_validator.h"
#include "agent/datasets/dataset_resolver.h"
#include "agent/datasets/registry/dataset_provisioner.h"
#include "agent/release/release_cache.h"
#include "agent/scenario/program_resolver.h"
#include "agent/scenario/scenario_driver.h"
#include "agent/tiers/profile_set.h"
#include "common/http/curl_http_client.h"
#include "common/net/port_allocator.h"
#include "common/process/posix_process_launcher.h"
#include "common/time/clock.h"
#include "common/time/sleeper.h"

namespace kvbench::agent {

// Grace between SIGTERM and SIGKILL for a scenario's children, wherever the agent runs (kv-agent,
// `kvctl run`, the scenario tests): AgentConfig.child_stop_grace_s's default.
inline constexpr absl::Duration kDefaultChildStopGrace =
    absl::Seconds(static_cast<int64_t>(kDefaultChildStopGraceSeconds));

// What differs between the places the agent runs; everything else is decided by the factory.
struct ScenarioEnvironmentOptions {
  tiers::ProfileSet profiles;
  std::string bin_dir;                     // our binaries; "" = this process's own folder
  std::optional<std::string> search_path;  // PATH for other programs; unset = $PATH
  std::vector<std::string> dataset_roots;  // searched in order
  bool allow_user_dataset_paths = false;   // local runs only: a spec may name any file
  std::string dataset_cache_dir;           // registry datasets are pulled here; "" = no pulling
  std::string dataset_mirror;              // where they are pulled from; "" = upstream
  std::string run_dir;                     // pid files of the children
  std::string nvme_cache_dir;              // the NVME tier's L2 pool parent
  std::vector<std::string> model_roots;    // where a model given as a path may be
  std::vector<int> gpus;                   // GPU indices for vllm engines
  absl::Duration stop_grace = kDefaultChildStopGrace;
  Clock* clock = nullptr;      // borrowed; null = the factory's RealClock
  Sleeper* sleeper = nullptr;  // borrowed; null = the factory's RealSleeper
};

// The one composition of the agent's real seams (process launcher, curl, clock, ports, program
// and dataset resolution, dataset pulls, profiles): kv-agent (ThreadScenarioWorker),
// `kvctl run` (through the agent) and the scenario tests take each scenario's ScenarioEnvironment
// from here, so they cannot disagree on how a scenario runs.
class ScenarioEnvironmentFactory {
 public:
  // UNAVAILABLE when curl cannot be initialised.
  static absl::StatusOr<std::unique_ptr<ScenarioEnvironmentFactory>> Create(
      ScenarioEnvironmentOptions options);

  // The seams for one scenario whose files go to `scenario_dir`; valid while the factory lives.
  ScenarioEnvironment ForScenario(const std::string& scenario_dir);

  Clock* clock() const { return clock_; }
  Sleeper* sleeper() const { return sleeper_; }
  const tiers::ProfileSet& profiles() const { return options_.profiles; }

 private:
  ScenarioEnvironmentFactory(ScenarioEnvironmentOptions options,
                             std::unique_ptr<CurlHttpClient> http);

  const ScenarioEnvironmentOptions options_;
  RealClock real_clock_;
  Clock* const clock_;
  RealSleeper real_sleeper_;
  Sleeper* const sleeper_;
  PosixProcessLauncher launcher_;
  std::unique_ptr<CurlHttpClient> http_;
  PortAllocator ports_;
  ProgramResolver programs_;
  datasets::DatasetResolver datasets_;
  datasets::DatasetProvisioner provisioner_;
  release::ReleaseCache releases_;  // each program's release, probed once
};

}  // namespace kvbench::agent
