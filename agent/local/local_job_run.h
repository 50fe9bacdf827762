#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/scenario_environment_factory.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::agent {

// What `kvctl run` needs from the machine it runs on.
struct LocalRunOptions {
  std::string out_dir;         // results go to <out_dir>/<job_id>/<scenario_id>/
  std::string profiles_dir;    // "" = the first of $KV_PROFILES_DIR, <bin>/../share/kvbench/
                               // profiles, <bin>/../../deploy/profiles that exists
  std::string dataset_mirror;  // searched before $KV_DATASET_MIRROR and the demo's datasets
                               // beside the binaries (BundledFolders::ExampleDatasetsDir)
  std::string nvme_cache_dir;  // "" = <out_dir>/<job_id>/nvme-cache
  std::vector<std::string> model_roots;  // where a model given as a path may be (--model-root)
  std::vector<int> gpus;                 // GPU indices for vllm engines (simulators need none)
  v1::Vendor gpu_vendor = v1::VENDOR_UNSPECIFIED;  // the vendor of `gpus` (the job's build)
};

// Helpers of `kvctl run`'s embedded agent (LocalAgent) and `kvctl plan`: where a local run finds
// profiles and datasets, and the agent's seams with kvctl run's local choices (dataset paths of
// the user's own are accepted and datasets are read in place: no cache to pull into).
class LocalJobRun {
 public:
  // The folders a local run finds datasets in, in order: `dataset_mirror` (when set),
  // $KV_DATASET_MIRROR, the demo's datasets shipped beside the binaries.
  static std::vector<std::string> DatasetRoots(const std::string& dataset_mirror);

  // How a tier's requests are routed over the job's replicas: "" (one replica), "sticky" or
  // "least_conn" (agent/tiers ScenarioRouting, what ScenarioResult.routing will say).
  static std::string Routing(const v1::JobSpec& spec, v1::Tier tier);

  // The profiles folder `options` selects (see LocalRunOptions::profiles_dir).
  static std::string FindProfilesDir(const std::string& configured);

  // Pid files of all runs of one --out folder: <out_dir>/.run.
  static std::string RunDir(const LocalRunOptions& options);
  // The agent's seams with kvctl run's local choices; makes `job_dir`. Errors naming the
  // profiles or the folder that cannot be made.
  static absl::StatusOr<std::unique_ptr<ScenarioEnvironmentFactory>> Environments(
      const LocalRunOptions& options, const std::string& job_dir);
};

}  // namespace kvbench::agent
