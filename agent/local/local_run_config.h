#pragma once

#include <string>
#include <vector>

#include "agent/agent.h"
#include "agent/agent_seams.h"
#include "agent/local/dataset_ceiling.h"
#include "kvbench/v1/config.pb.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::agent {

// What `kvctl run` needs from the machine it runs on (its flags).
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
  // Scenario folders under out_dir older than this are removed at start and hourly; 0 keeps
  // them (a local run's results are the user's, kept unless asked).
  double scenario_retention_days = 0;
};

// What `kvctl run` and `kvctl plan` use of the agent, in one header: the agent itself (agent.h,
// Agent::Create), DatasetCeiling (dataset_ceiling.h) and LocalRunConfig below.
//
// `kvctl run`'s flags as the agent it embeds — the one agent (agent/agent.h), with a config and
// seams of its own: results under --out (WorkDirLayout::ForLocalRun), datasets also from the
// demo's folder beside the binaries and from any file the user names (read in place: no cache to
// pull into). And the helpers `kvctl plan` and `kvctl doctor` share with it, so they find
// profiles and datasets where the run will.
class LocalRunConfig {
 public:
  // The agent id a local run's scenarios are assigned to (job.json's ScenarioStatus.agent_id).
  static constexpr char kAgentId[] = "local";

  // The embedded agent's config for the job `job_id`.
  static v1::AgentConfig AgentConfig(const LocalRunOptions& options, const std::string& job_id);
  // Its layout and dataset choices; the process adds its clock, sleeper, executor, registry and
  // probes.
  static AgentSeams Seams(const LocalRunOptions& options, const std::string& job_id);

  // The folders a local run finds datasets in, in order: `dataset_mirror` (when set),
  // $KV_DATASET_MIRROR, the demo's datasets shipped beside the binaries.
  static std::vector<std::string> DatasetRoots(const std::string& dataset_mirror);

  // How a tier's requests are routed over the job's replicas: "" (one replica), "sticky" or
  // "least_conn" (agent/tiers ScenarioRouting, what ScenarioResult.routing will say).
  static std::string Routing(const v1::JobSpec& spec, v1::Tier tier);

  // The profiles folder `configured` selects (see LocalRunOptions::profiles_dir).
  static std::string FindProfilesDir(const std::string& configured);
};

}  // namespace kvbench::agent
