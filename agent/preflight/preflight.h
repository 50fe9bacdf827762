#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/preflight/preflight_probes.h"
#include "agent/tiers/profile_set.h"
#include "kvbench/v1/agent.pb.h"
#include "kvbench/v1/config.pb.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench::agent::preflight {

// What the checks look at: the agent's config (ForAgentConfig), or `kvctl run`'s local choices
// (kvctl doctor), with a job spec when one is given.
struct PreflightInput {
  std::string nvme_cache_dir;  // "" = this node runs no NVME scenario
  std::vector<std::string> model_roots;
  // Where datasets are found offline, in order (datasets::DatasetResolver's roots).
  std::vector<std::string> dataset_roots;
  bool allow_user_dataset_paths = false;  // kvctl run: a spec may name any readable file
  // Whether a registry dataset missing here is pulled before a scenario (kv-agent with a
  // dataset_cache_dir): then missing is a WARN, not a FAIL.
  bool pulls_registry_datasets = false;
  // GPUs offered (the config's); empty = those NVML finds (the agent offers and pins them).
  std::vector<v1::GpuInfo> gpus;
  // An address the process will listen on, checked to be free ("" or port 0: not checked). Set
  // by `kv-agent --preflight` (metrics_listen); a running agent holds its own.
  std::string listen_address;
  std::optional<v1::JobSpec> spec;  // kvctl doctor SPEC: the job's model, dataset and pools

  // The agent's config: its NVMe dir, model roots, dataset cache and mirror ($KV_DATASET_MIRROR
  // too) and GPUs, as its scenarios use them (agent/scenario/thread_scenario_worker.cc).
  static PreflightInput ForAgentConfig(const v1::AgentConfig& config);
};

// What the preflight found: one check per line, and the releases it probed.
struct PreflightReport {
  std::vector<v1::PreflightCheck> checks;
  // Every profile's program (release::ProgramRelease::ToProto, one per distinct release), the
  // NVIDIA driver and CUDA when NVML says, and kvbench itself.
  std::vector<v1::ComponentVersion> versions;
};

// The preflight of a node: without starting a job, everything a scenario will need,
// one PreflightCheck per check with a stable name, what was found and, when it does not pass,
// what to do and which tiers and profiles a FAIL keeps off the node. The checks, in this order:
//   binary.<profile>    each profile's command[0] found (next to the agent, then PATH), its
//                       release probed and held to the supported minimum
//   gpu.nvidia          NVML: GPUs, driver and CUDA version (SKIP without the library)
//   gpu.amd             amd-smi / rocm-smi (SKIP without them)
//   gpu.visible_devices CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES of
//                       the agent's environment against the GPUs it offers; the profiles' variable
//   nvme.dir            nvme_cache_dir a writable folder (or creatable)
//   nvme.block_device   on a block device (statfs: tmpfs, ramfs, overlay, network refused; the
//                       device from /proc/self/mountinfo)
//   nvme.o_direct       an O_DIRECT write of one aligned block works there
//   nvme.free_space     room for the pool (nvme_pool_gb: the spec's, else the default 64)
//   nvme.page_cache     MemAvailable against the pool: a pool that fits in free RAM may be read
//                       back from the page cache (WARN)
//   ports               loopback binds for the children; the listen address free
//   model_roots         each root a readable folder; the spec's model (a path) under one
//   datasets            the registry's datasets (or the spec's) resolvable offline
// With a spec, a FAIL that keeps none of the job's scenarios off the node (a profile the job does
// not run, a tier it does not have) is a SKIP saying so: `kvctl doctor SPEC` judges that job.
// Runs on the calling thread and blocks (programs are started, NVML is loaded); never fails: what
// cannot be read is a WARN or FAIL saying so.
class Preflight {
 public:
  // `profiles` and `probes` are borrowed and must outlive the preflight.
  Preflight(PreflightInput input, const tiers::ProfileSet* profiles, PreflightProbes* probes);

  PreflightReport RunAll() const;
  // The checks that are cheap to repeat while the agent is idle (no program started, no GPU
  // library loaded): nvme.*, ports, model_roots, datasets.
  std::vector<v1::PreflightCheck> RunCheap() const;

 private:
  const PreflightInput input_;
  const tiers::ProfileSet* const profiles_;
  PreflightProbes* const probes_;
};

// FAILED_PRECONDITION naming the checks that FAIL ("preflight: 2 checks FAIL: nvme.block_device,
// binary.vllm-nvidia"), OK when none does (WARNs pass): what `kv-agent --preflight` and `kvctl
// doctor` exit with (5 when a check FAILs).
absl::Status PreflightOutcome(const PreflightReport& report);

}  // namespace kvbench::agent::preflight
