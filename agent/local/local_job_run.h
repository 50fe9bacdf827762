#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/scenario_environment_factory.h"
#include "kvbench/v1/event.pb.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::agent {

// What `kvctl run` needs from the machine it runs on.
struct LocalRunOptions {
  std::string out_dir;         // results go to <out_dir>/<job_id>/<scenario_id>/
  std::string profiles_dir;    // "" = the first of $KV_PROFILES_DIR, <bin>/../share/kvbench/
                               // profiles, <bin>/../../deploy/profiles that exists
  std::string dataset_mirror;  // searched before $KV_DATASET_MIRROR and the demo's datasets
                               // beside the binaries (BundledFolders::ExampleDatasetsDir)
  std::string nvme_cache_dir;  // "" = <out_dir>/<job_id>/nvme-cache
  std::vector<int> gpus;       // GPU indices for vllm engines (simulators need none)
};

// One scenario's outcome in a local run.
struct LocalScenarioOutcome {
  v1::Scenario scenario;
  absl::Status status;        // OK, or why it failed / was cancelled
  v1::ScenarioResult result;  // when OK
};

// Runs a whole job in this process, with an embedded agent and no daemons (DESIGN.md: `kvctl
// run`): the scenarios one after the other through ScenarioExecutor, every event handed to
// `on_event` (with job_id and scenario_id set) as it happens. `cancel` (may be null), when
// raised, cancels the running scenario and skips the rest. The seams are the agent's own
// (ScenarioEnvironmentFactory: the same stop grace and the rest); local choices: dataset paths of
// the user's own are accepted and datasets are read in place (no cache to pull into). Returns one
// outcome per scenario; fails only before any scenario runs (profiles that do not load, an output
// dir that cannot be made).
class LocalJobRun {
 public:
  using EventCallback = std::function<void(const v1::Event& event)>;

  static absl::StatusOr<std::vector<LocalScenarioOutcome>> Run(
      const v1::JobSpec& spec, const std::vector<v1::Scenario>& scenarios,
      const std::string& job_id, const LocalRunOptions& options, const EventCallback& on_event,
      std::atomic<bool>* cancel);

  // The folders a local run finds datasets in, in order: `dataset_mirror` (when set),
  // $KV_DATASET_MIRROR, the demo's datasets shipped beside the binaries.
  static std::vector<std::string> DatasetRoots(const std::string& dataset_mirror);

  // How a tier's requests are routed over the job's replicas: "" (one replica), "sticky" or
  // "least_conn" (agent/tiers ScenarioRouting, what ScenarioResult.routing will say).
  static std::string Routing(const v1::JobSpec& spec, v1::Tier tier);

  // The profiles folder `options` selects (see LocalRunOptions::profiles_dir).
  static std::string FindProfilesDir(const std::string& configured);

 private:
  // Pid files of all runs of one --out folder: <out_dir>/.run.
  static std::string RunDir(const LocalRunOptions& options);
  // The agent's seams with kvctl run's local choices; makes `job_dir`. Errors naming the
  // profiles or the folder that cannot be made.
  static absl::StatusOr<std::unique_ptr<ScenarioEnvironmentFactory>> Environments(
      const LocalRunOptions& options, const std::string& job_dir, std::atomic<bool>* cancel);
};

}  // namespace kvbench::agent
