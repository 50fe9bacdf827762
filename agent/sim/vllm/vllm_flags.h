#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/sim/engine/engine_config.h"
#include "agent/sim/vllm/kv_connector_factory.h"

namespace kvbench::sim {

// Defaults of `vllm serve` that kvsim-vllm mirrors (reference/vllm.md §3).
inline constexpr int kVllmDefaultPort = 8000;
inline constexpr double kVllmDefaultGpuMemoryUtilization = 0.92;  // newest vLLM (0.9 before 0.27)
// Simulated GPU: one H200 (reference/sim-calibration.md).
inline constexpr double kDefaultSimGpuMemoryGb = 141;
// Simulated model load before the server listens (vLLM takes minutes; tests want it short).
inline constexpr double kDefaultSimLoadSeconds = 2;
// The vLLM release imitated where kvsim-vllm tells its version: the newest on PyPI
// (reference/vllm.md, 2026-11).
inline constexpr char kDefaultSimVllmVersion[] = "0.33.0";

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
  // --sim-vllm-version: the release `kvsim-vllm --version` and GET /version name.
  std::string sim_vllm_version = kDefaultSimVllmVersion;
  // --sim-connector-lookup: module-path-first (newest factory) or registry-first (older ones).
  ConnectorLookup sim_connector_lookup = ConnectorLookup::kModulePathFirst;
  // --sim-external-counting: prompt-minus-local (as kvsim always counted) or whole-prompt.
  ExternalQueryCounting sim_external_counting = ExternalQueryCounting::kPromptMinusLocal;
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

// `kvsim-vllm [--sim-*...] --version` (or -v), as `vllm --version` prints the installed release
// and exits 0 (vllm-project/vllm:vllm/entrypoints/cli/main.py@a05ee513: an argparse "version"
// action on the top-level parser, before any subcommand). Pure: the release to print, or nullopt
// when argv is not such a request (it then goes to ParseVllmServeFlags). Before the version flag,
// --sim-vllm-version=V (or "--sim-vllm-version V") picks the release and any other --sim-* flag
// (with "=value", or a value as the next word) is ignored, so a probe can pass a profile's --sim-*
// arguments; any other word before it (a subcommand such as "serve", another flag) makes argv no
// version request. INVALID_ARGUMENT for --sim-vllm-version without a value or with an empty one.
absl::StatusOr<std::optional<std::string>> TopLevelVersionRequest(int argc,
                                                                  const char* const* argv);

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
// in-tree class without SupportsHMA; a kv_connector_module_path naming LMCache's own class, which
// newer vLLM may keep it on for, is not told apart); on otherwise. It only matters for a model
// with sliding-window or Mamba layers, so for any other model this is false. (--no-disable-...
// together with a connector is refused at parse time, as vLLM raises ValueError.)
bool HybridKvCacheManagerEnabled(const VllmServeOptions& options, const ModelSpec& model);

// A hybrid SSM model (ModelSpec::hybrid_ssm: Mamba and attention layers) without the hybrid KV
// cache manager fails vLLM's start-up: with the manager off, vLLM must put every layer in one KV
// cache spec, and Mamba layers cannot be. Pure: FAILED_PRECONDITION with the ValueError message
// of the newest kv_cache_utils.py copy read, "Failed to promote local KV cache specs to one
// unified type." (_promote_local_kv_cache_specs, (idx 70289545679), no commit readable; older
// releases raise "Hybrid KV cache manager is disabled but failed to convert the KV cache specs to
// one unified type." from unify_hybrid_kv_cache_specs,
// vllm-project/vllm:vllm/v1/core/kv_cache_utils.py@bbf906a8), OK otherwise. The manager is off
// with --disable-hybrid-kv-cache-manager, or with --kv-transfer-config when the flag is not
// given (HybridKvCacheManagerEnabled). vLLM raises it in the engine core after loading the
// weights; kvsim-vllm exits 1 at start, before connecting a KV connector.
absl::Status HybridSsmStartupError(const VllmServeOptions& options, const ModelSpec& model);

// The engine configuration these options describe (model shape from the catalog, GPU blocks
// from the override or from memory, the latter with HybridKvCacheManagerEnabled).
EngineConfig MakeEngineConfig(const VllmServeOptions& options);

}  // namespace kvbench::sim
