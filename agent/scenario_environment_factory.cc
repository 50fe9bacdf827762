#include "agent/scenario_environment_factory.h"

#include "agent/release/launcher_probe_runner.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {

absl::StatusOr<std::unique_ptr<ScenarioEnvironmentFactory>> ScenarioEnvironmentFactory::Create(
    ScenarioEnvironmentOptions options) {
  KV_ASSIGN_OR_RETURN(std::unique_ptr<CurlHttpClient> http, CurlHttpClient::Create());
  return std::unique_ptr<ScenarioEnvironmentFactory>(
      new ScenarioEnvironmentFactory(std::move(options), std::move(http)));
}

ScenarioEnvironmentFactory::ScenarioEnvironmentFactory(ScenarioEnvironmentOptions options,
                                                       std::unique_ptr<CurlHttpClient> http)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? options_.clock : &real_clock_),
      sleeper_(options_.sleeper != nullptr ? options_.sleeper : &real_sleeper_),
      http_(std::move(http)),
      programs_(options_.bin_dir.empty() ? ProgramResolver::SelfBinDir() : options_.bin_dir,
                options_.search_path),
      datasets_(options_.dataset_roots, options_.allow_user_dataset_paths),
      provisioner_(options_.dataset_cache_dir, options_.dataset_mirror),
      releases_(release::LauncherProbeRunner(
          &launcher_, options_.run_dir.empty() ? std::string("/tmp") : options_.run_dir)) {}

ScenarioEnvironment ScenarioEnvironmentFactory::ForScenario(const std::string& scenario_dir) {
  ScenarioEnvironment env;
  env.launcher = &launcher_;
  env.http = http_.get();
  env.clock = clock_;
  env.sleeper = sleeper_;
  env.ports = &ports_;
  env.profiles = &options_.profiles;
  env.programs = &programs_;
  env.datasets = &datasets_;
  env.dataset_provisioner = &provisioner_;  // off without a cache dir: read in place
  env.scenario_dir = scenario_dir;
  env.run_dir = options_.run_dir;
  env.nvme_cache_dir = options_.nvme_cache_dir;
  env.model_roots = options_.model_roots;
  env.gpus = options_.gpus;
  env.stop_grace = options_.stop_grace;
  env.releases = &releases_;
  return env;
}

}  // namespace kvbench::agent
