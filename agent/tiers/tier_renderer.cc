// Choice of profiles, GPU split and the command lines of the cache server and the replicas.
// RenderCaddyfile is in caddyfile_renderer.cc.

#include "agent/tiers/tier_renderer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/tiers/render_helpers.h"
#include "common/log/logging.h"

namespace kvbench::agent::tiers {
namespace {

// The only connector kvbench wires (reference/lmcache.md §2.4) and the role it requires.
constexpr char kLmcacheMpConnector[] = "LMCacheMPConnector";
constexpr char kKvRoleBoth[] = "kv_both";
// LMCache's L1 eviction policy for every tier (lmcache.md §2.2: required, no default).
constexpr char kEvictionPolicy[] = "LRU";
// vLLM's ROCm platform copies HIP_VISIBLE_DEVICES into CUDA_VISIBLE_DEVICES when only HIP is set,
// and raises ValueError("Inconsistent GPU visibility env vars ...") at import when both are set
// and differ (vllm-project/vllm:vllm/platforms/rocm.py@001eda31, _sync_hip_cuda_env_vars; older
// releases assert equality). An agent started with CUDA_VISIBLE_DEVICES would kill every AMD
// replica, so a replica restricted through HIP_VISIBLE_DEVICES never inherits it.
constexpr char kHipVisibleDevices[] = "HIP_VISIBLE_DEVICES";
constexpr char kCudaVisibleDevices[] = "CUDA_VISIBLE_DEVICES";

bool HasCacheServer(v1::Tier tier) { return tier == v1::CPU_RAM || tier == v1::NVME; }

void AddFlag(std::vector<std::string>* argv, const char* flag, std::string value) {
  argv->push_back(flag);
  argv->push_back(std::move(value));
}

// The flags every simulated process takes from the job: time scale and seed.
void AddSimulationFlags(const v1::Profile& profile, const v1::JobSpec& job,
                        std::vector<std::string>* argv) {
  if (!profile.simulated()) return;
  if (job.engine_overrides().has_sim_time_scale()) {
    AddFlag(argv, "--sim-time-scale", FormatNumber(job.engine_overrides().sim_time_scale()));
  }
  if (job.has_seed()) AddFlag(argv, "--sim-seed", absl::StrCat(job.seed()));
}

LaunchPlan StartPlan(std::string name, const v1::Profile& profile) {
  LaunchPlan plan;
  plan.name = std::move(name);
  plan.argv.assign(profile.command().begin(), profile.command().end());
  plan.env.insert(profile.env().begin(), profile.env().end());
  return plan;
}

// The flag of an argument: "--metrics-sample-rate" of "--metrics-sample-rate=0.01".
std::string FlagName(const std::string& arg) { return arg.substr(0, arg.find('=')); }

// The profile's extra_args, but those `release` says it lacks.
void AppendExtraArgs(const v1::Profile& profile, LaunchPlan* plan,
                     const release::ProgramRelease* release = nullptr) {
  for (const std::string& arg : profile.extra_args()) {
    if (release != nullptr && !release->MayHaveFlag(FlagName(arg))) {
      plan->dropped_flags.push_back(arg);
      continue;
    }
    plan->argv.push_back(arg);
  }
}

// {"kv_connector":"LMCacheMPConnector","kv_role":"kv_both","kv_connector_extra_config":
//  {"lmcache.mp.host":"tcp://H","lmcache.mp.port":P,"lmcache.mp.mq_timeout":300}}
std::string KvTransferConfig(const Endpoint& cache, const std::string& module_path) {
  nlohmann::ordered_json extra;
  extra["lmcache.mp.host"] = absl::StrCat("tcp://", cache.host);
  extra["lmcache.mp.port"] = cache.port;
  extra["lmcache.mp.mq_timeout"] = kLmcacheMqTimeoutSeconds;
  nlohmann::ordered_json config;
  config["kv_connector"] = kLmcacheMpConnector;
  config["kv_role"] = kKvRoleBoth;
  config["kv_connector_extra_config"] = std::move(extra);
  // vLLM's KVTransferConfig field (vllm-project/vllm:vllm/config/kv_transfer.py@9dc49464); the
  // newest factory imports the class from it before looking at its own registry, "External
  // module path takes priority over internal registry" (kv_connector/factory.py), older ones
  // only for names their registry lacks.
  if (!module_path.empty()) config["kv_connector_module_path"] = module_path;
  return config.dump();
}

// {"type":"fs","base_path":D,"max_capacity_gb":G,"eviction":{"eviction_policy":"LRU",
//  "trigger_watermark":0.8,"eviction_ratio":0.2}}: without the eviction block LMCache never
// evicts from L2, whatever max_capacity_gb says (L2AdapterConfigBase._parse_eviction_config,
// LMCache/LMCache:lmcache/v1/distributed/l2_adapters/config.py@04aa2be9; the storage manager's
// _should_enable_l2_eviction).
std::string FsL2Adapter(const std::string& base_path, double max_capacity_gb) {
  nlohmann::ordered_json eviction;
  eviction["eviction_policy"] = kEvictionPolicy;
  eviction["trigger_watermark"] = JsonNumber(kL2EvictionTriggerWatermark);
  eviction["eviction_ratio"] = JsonNumber(kL2EvictionRatio);
  nlohmann::ordered_json adapter;
  adapter["type"] = "fs";
  adapter["base_path"] = base_path;
  adapter["max_capacity_gb"] = JsonNumber(max_capacity_gb);
  adapter["eviction"] = std::move(eviction);
  return adapter.dump();
}

}  // namespace

std::string Endpoint::url() const { return absl::StrCat("http://", host, ":", port); }

absl::StatusOr<ProfileChoice> ChooseProfiles(const v1::JobSpec& job, v1::Tier tier) {
  if (tier == v1::TIER_UNSPECIFIED) return absl::InvalidArgumentError("tier: is required");
  ProfileChoice choice;
  switch (job.engine()) {
    case v1::SIM:
      choice.engine = kSimVllmProfile;
      if (HasCacheServer(tier)) choice.cache_server = kSimLmcacheProfile;
      return choice;
    case v1::VLLM:
      if (job.build() == v1::NVIDIA) {
        choice.engine = kVllmNvidiaProfile;
      } else if (job.build() == v1::AMD) {
        choice.engine = kVllmAmdProfile;
      } else {
        return absl::InvalidArgumentError("build: is required for engine VLLM: NVIDIA or AMD");
      }
      if (tier == v1::CPU_RAM) choice.cache_server = kLmcacheCpuProfile;
      if (tier == v1::NVME) choice.cache_server = kLmcacheNvmeProfile;
      return choice;
    default:
      return absl::InvalidArgumentError("engine: is required: VLLM or SIM");
  }
}

absl::StatusOr<std::vector<std::vector<int>>> SplitGpus(const std::vector<int>& gpus, int replicas,
                                                        int tensor_parallel_size) {
  if (replicas < 1 || tensor_parallel_size < 1) {
    return absl::InvalidArgumentError(absl::StrCat("replicas (", replicas,
                                                   ") and tensor_parallel_size (",
                                                   tensor_parallel_size, ") must be >= 1"));
  }
  const size_t needed = static_cast<size_t>(replicas) * tensor_parallel_size;
  if (gpus.size() < needed) {
    return absl::FailedPreconditionError(absl::StrCat(
        replicas, " replicas x tensor_parallel_size ", tensor_parallel_size, " need ", needed,
        " GPUs; this node has ", gpus.size(), " [", absl::StrJoin(gpus, ","), "]"));
  }
  std::vector<std::vector<int>> split(replicas);
  for (size_t i = 0; i < needed; ++i) split[i / tensor_parallel_size].push_back(gpus[i]);
  return split;
}

LaunchPlan RenderCacheServer(const v1::Profile& profile, const v1::JobSpec& job,
                             const v1::Scenario& scenario, const ScenarioWiring& wiring,
                             const release::ProgramRelease* release) {
  KV_CHECK(HasCacheServer(scenario.tier()))
      << "tier " << v1::Tier_Name(scenario.tier()) << " has no cache server";
  LaunchPlan plan = StartPlan("cache-server", profile);
  std::vector<std::string>& argv = plan.argv;
  AddFlag(&argv, "--host", wiring.cache_zmq.host);
  AddFlag(&argv, "--port", absl::StrCat(wiring.cache_zmq.port));
  AddFlag(&argv, "--http-host", wiring.cache_zmq.host);
  AddFlag(&argv, "--http-port", absl::StrCat(wiring.cache_http_port));
  const std::string prometheus_port =
      absl::StrCat("--prometheus-port=", wiring.cache_prometheus_port);
  if (release == nullptr || release->MayHaveFlag("--prometheus-port")) {
    AddFlag(&argv, "--prometheus-port", absl::StrCat(wiring.cache_prometheus_port));
  } else {
    plan.dropped_flags.push_back(prometheus_port);
  }
  AddFlag(&argv, "--l1-size-gb", FormatNumber(job.cpu_pool_gb()));
  AddFlag(&argv, "--eviction-policy", kEvictionPolicy);
  AddFlag(&argv, "--max-workers", absl::StrCat(std::max(1, job.replicas())));
  if (scenario.tier() == v1::NVME) {
    AddFlag(&argv, "--l2-adapter", FsL2Adapter(wiring.nvme_dir, job.nvme_pool_gb()));
    if (profile.simulated()) AddFlag(&argv, "--sim-l2-bytes-scale", FormatNumber(kSimL2BytesScale));
  }
  AddSimulationFlags(profile, job, &argv);
  // kvsim-lmcache's eviction loop ticks by the scenario's simulated clock, so what it evicts does
  // not depend on how busy the host is.
  if (profile.simulated() && !wiring.sim_clock.empty()) {
    AddFlag(&argv, "--sim-clock", wiring.sim_clock);
  }
  AppendExtraArgs(profile, &plan, release);
  if (plan.env.count(kOtlpEndpointEnv) == 0) plan.unset_env.push_back(kOtlpEndpointEnv);
  return plan;
}

LaunchPlan RenderReplica(const v1::Profile& profile, const v1::JobSpec& job,
                         const v1::Scenario& scenario, const ScenarioWiring& wiring, int index) {
  KV_CHECK(index >= 0 && static_cast<size_t>(index) < wiring.replicas.size())
      << "replica " << index << " of " << wiring.replicas.size();
  LaunchPlan plan = StartPlan(absl::StrCat("replica-", index), profile);
  std::vector<std::string>& argv = plan.argv;
  const Endpoint& endpoint = wiring.replicas[index];
  argv.push_back(job.model());
  AddFlag(&argv, "--host", endpoint.host);
  AddFlag(&argv, "--port", absl::StrCat(endpoint.port));
  AddFlag(&argv, "--tensor-parallel-size", absl::StrCat(job.tensor_parallel_size()));
  argv.push_back(kDisableHybridKvCacheManagerFlag);
  const v1::EngineOverrides& overrides = job.engine_overrides();
  if (overrides.has_num_gpu_blocks()) {
    AddFlag(&argv, "--num-gpu-blocks-override", absl::StrCat(overrides.num_gpu_blocks()));
  }
  if (overrides.has_gpu_memory_utilization()) {
    AddFlag(&argv, "--gpu-memory-utilization", FormatNumber(overrides.gpu_memory_utilization()));
  }
  if (overrides.has_max_model_len()) {
    AddFlag(&argv, "--max-model-len", absl::StrCat(overrides.max_model_len()));
  }
  if (overrides.has_max_num_seqs()) {
    AddFlag(&argv, "--max-num-seqs", absl::StrCat(overrides.max_num_seqs()));
  }
  AddSimulationFlags(profile, job, &argv);
  if (profile.simulated() && !wiring.sim_clock.empty()) {
    AddFlag(&argv, "--sim-clock", wiring.sim_clock);
    AddFlag(&argv, "--sim-clock-rank", absl::StrCat(index));
  }
  if (HasCacheServer(scenario.tier())) {
    AddFlag(&argv, "--kv-transfer-config",
            KvTransferConfig(wiring.cache_zmq, profile.kv_connector_module_path()));
  }
  AppendExtraArgs(profile, &plan);
  if (!profile.visible_devices_env().empty()) {
    const bool has_gpus = static_cast<size_t>(index) < wiring.replica_gpus.size();
    // No GPUs listed hides them all (""), never exposes every GPU of the node.
    plan.env[profile.visible_devices_env()] =
        has_gpus ? absl::StrJoin(wiring.replica_gpus[index], ",") : "";
  }
  if (profile.visible_devices_env() == kHipVisibleDevices &&
      plan.env.count(kCudaVisibleDevices) == 0) {
    plan.unset_env.push_back(kCudaVisibleDevices);
  }
  return plan;
}

}  // namespace kvbench::agent::tiers
