#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/sim/engine/engine_config.h"

namespace kvbench::sim {

// Defaults of `vllm serve` that kvsim-vllm mirrors (reference/vllm.md §3).
inline constexpr int kVllmDefaultPort = 8000;
inline constexpr double kVllmDefaultGpuMemoryUtilization = 0.92;  // newest vLLM (0.9 before 0.27)
// Simulated GPU: one H200 (reference/sim-calibration.md).
inline constexpr double kDefaultSimGpuMemoryGb = 141;
// Simulated model load before the server listens (vLLM takes minutes; tests want it short).
inline constexpr double kDefaultSimLoadSeconds = 2;

// Everything `kvsim-vllm serve MODEL [flags]` was told.
struct VllmServeOptions {
  std::string model;
  std::string host = "0.0.0.0";
  int port = kVllmDefaultPort;
  std::vector<std::string> served_model_names;  // empty: the model path
  int max_model_len = 0;                        // 0: the model's
  int block_size = 16;
  double gpu_memory_utilization = kVllmDefaultGpuMemoryUtilization;
  int64_t num_gpu_blocks_override = 0;  // 0: derived from memory
  bool enable_prefix_caching = true;
  int max_num_seqs = 256;
  int max_num_batched_tokens = 8192;
  std::string kv_transfer_config;  // JSON, empty when no connector
  bool enable_prompt_tokens_details = false;
  bool enable_log_requests = false;  // one "Received request <id>: user=<x-user-id>" line each
  int tensor_parallel_size = 1;
  // --disable-hybrid-kv-cache-manager / --no-disable-hybrid-kv-cache-manager: vLLM's tri-state
  // (unset lets vLLM decide; HybridKvCacheManagerEnabled).
  bool disable_hybrid_kv_cache_manager = false;
  bool no_disable_hybrid_kv_cache_manager = false;
  // Tool calls parsed from any model's output (tool_choice "auto" accepted for every model).
  bool enable_auto_tool_choice = false;
  std::string tool_call_parser;
  // --sim-*: the simulation itself.
  double sim_time_scale = 1.0;
  uint64_t sim_seed = 0;
  bool sim_omit_histograms = false;
  double sim_gpu_memory_gb = kDefaultSimGpuMemoryGb;
  double sim_load_seconds = kDefaultSimLoadSeconds;
  int sim_mean_output_tokens = 256;
  std::string sim_platform = "cuda";  // "cuda" or "rocm" (CheckRocmVisibleDevices at start)
  // The scenario's shared clock file (SimClock) and this replica's rank on it; empty: simulated
  // time is wall time ÷ sim_time_scale.
  std::string sim_clock;
  int sim_clock_rank = 0;
  LatencyConstants latency;

  // The name responses and metrics carry: the first served name, else the model.
  const std::string& primary_name() const {
    return served_model_names.empty() ? model : served_model_names.front();
  }
};

// Parses argv (argv[0] is the program). INVALID_ARGUMENT with vLLM-like messages naming the bad
// flag ("unrecognized arguments: --foo"); `help_text` receives --help output (then status OK
// with `help` set).
struct VllmFlagsResult {
  VllmServeOptions options;
  bool help = false;
  std::string help_text;
};
absl::StatusOr<VllmFlagsResult> ParseVllmServeFlags(int argc, const char* const* argv);

// What vLLM's ROCm platform does with the GPU visibility variables at import (pure; null or
// empty = unset): both set and different is fatal, with vLLM's message
// (vllm-project/vllm:vllm/platforms/rocm.py@001eda31, _sync_hip_cuda_env_vars). kvsim-vllm runs
// it with --sim-platform rocm, so the agent's handling of an AMD replica's environment is tested
// against a process that dies the way vLLM does.
absl::Status CheckRocmVisibleDevices(const char* hip_visible_devices,
                                     const char* cuda_visible_devices);

// Whether vLLM runs its hybrid KV cache manager for `model` (pure), following
// vllm-project/vllm:vllm/config/vllm.py@000fc94b (__post_init__, "HMA runtime rules"): off when
// --disable-hybrid-kv-cache-manager is given; left unset, off when --kv-transfer-config names a
// connector that does not support it (the only one simulated, LMCacheMPConnector, is vLLM's
// in-tree class without SupportsHMA); on otherwise. It only matters for a model with
// sliding-window layers, so for any other model this is false. (--no-disable-... together with a
// connector is refused at parse time, as vLLM raises ValueError.)
bool HybridKvCacheManagerEnabled(const VllmServeOptions& options, const ModelSpec& model);

// The engine configuration these options describe (model shape from the catalog, GPU blocks
// from the override or from memory, the latter with HybridKvCacheManagerEnabled).
EngineConfig MakeEngineConfig(const VllmServeOptions& options);

}  // namespace kvbench::sim
