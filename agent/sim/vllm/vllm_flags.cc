#include "agent/sim/vllm/vllm_flags.h"

#include <CLI/CLI.hpp>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "agent/sim/clock/sim_clock.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::sim {
namespace {

void AddVllmFlags(CLI::App* serve, VllmServeOptions* o) {
  serve->add_option("model", o->model, "Model id or path")->required();
  serve->add_option("--host", o->host, "Host to listen on")->capture_default_str();
  serve->add_option("--port", o->port, "Port to listen on")->capture_default_str();
  serve->add_option("--served-model-name", o->served_model_names,
                    "Names the API serves the model under (the first names metrics)");
  serve->add_option("--max-model-len", o->max_model_len, "Context length (default: the model's)");
  serve->add_option("--block-size", o->block_size, "Tokens per KV block")->capture_default_str();
  serve
      ->add_option("--gpu-memory-utilization", o->gpu_memory_utilization,
                   "Fraction of GPU memory for weights and KV cache")
      ->capture_default_str();
  serve->add_option("--num-gpu-blocks-override", o->num_gpu_blocks_override,
                    "Force the number of GPU KV blocks");
  serve->add_flag("--enable-prefix-caching,!--no-enable-prefix-caching", o->enable_prefix_caching,
                  "Prefix caching (on by default)");
  serve->add_option("--max-num-seqs", o->max_num_seqs, "Max running requests")
      ->capture_default_str();
  serve
      ->add_option("--max-num-batched-tokens", o->max_num_batched_tokens,
                   "Token budget per engine step")
      ->capture_default_str();
  serve->add_option("--kv-transfer-config", o->kv_transfer_config,
                    "KV connector JSON (LMCacheMPConnector is simulated)");
  serve->add_flag("--enable-log-requests", o->enable_log_requests,
                  "Log each received request (with its x-user-id: the simulator's addition)");
  serve->add_flag("--enable-prompt-tokens-details", o->enable_prompt_tokens_details,
                  "Report usage.prompt_tokens_details.cached_tokens");
  serve->add_option("--tensor-parallel-size", o->tensor_parallel_size, "GPUs per replica (-tp)")
      ->capture_default_str();
  serve->add_flag("--disable-hybrid-kv-cache-manager", o->disable_hybrid_kv_cache_manager,
                  "Treat sliding-window layers as full attention (one KV cache group)");
  serve->add_flag("--no-disable-hybrid-kv-cache-manager", o->no_disable_hybrid_kv_cache_manager,
                  "Require the hybrid KV cache manager (an error where it is unsupported)");
  serve->add_flag("--enable-auto-tool-choice", o->enable_auto_tool_choice,
                  "Accept tool_choice \"auto\" for any model (needs --tool-call-parser)");
  serve->add_option("--tool-call-parser", o->tool_call_parser, "Tool-call parser name");
}

constexpr char kSimVllmVersionFlag[] = "--sim-vllm-version";

// The --sim-* flags that pick which vLLM release's behaviour to imitate.
void AddReleaseFlags(CLI::App* serve, VllmServeOptions* o) {
  serve
      ->add_option(kSimVllmVersionFlag, o->sim_vllm_version,
                   "vLLM release to report (--version, GET /version)")
      ->capture_default_str();
  const std::map<std::string, ConnectorLookup> lookups = {
      {"module-path-first", ConnectorLookup::kModulePathFirst},
      {"registry-first", ConnectorLookup::kRegistryFirst}};
  serve
      ->add_option("--sim-connector-lookup", o->sim_connector_lookup,
                   "How the KV connector factory finds kv_connector: module-path-first (newest "
                   "vLLM) or registry-first (older)")
      ->transform(CLI::CheckedTransformer(lookups))
      ->default_str("module-path-first");
  const std::map<std::string, ExternalQueryCounting> countings = {
      {"prompt-minus-local", ExternalQueryCounting::kPromptMinusLocal},
      {"whole-prompt", ExternalQueryCounting::kWholePrompt}};
  serve
      ->add_option("--sim-external-counting", o->sim_external_counting,
                   "What vllm:external_prefix_cache_queries_total counts: prompt-minus-local "
                   "(newer vLLM) or whole-prompt (older)")
      ->transform(CLI::CheckedTransformer(countings))
      ->default_str("prompt-minus-local");
}

void AddSimFlags(CLI::App* serve, VllmServeOptions* o) {
  LatencyConstants& l = o->latency;
  serve
      ->add_option("--sim-time-scale", o->sim_time_scale,
                   "Real seconds per simulated second (0.01 = 100x faster)")
      ->capture_default_str();
  serve->add_option("--sim-seed", o->sim_seed, "Seed of every simulated choice");
  serve->add_option(
      "--sim-clock", o->sim_clock,
      "The scenario's shared simulated clock file (steps by its turns, not wall time)");
  serve->add_option("--sim-clock-rank", o->sim_clock_rank, "This replica's rank on --sim-clock")
      ->check(CLI::Range(0, SimClock::kMaxRanks - 1));
  serve->add_flag("--sim-omit-histograms", o->sim_omit_histograms,
                  "Leave request-timing histograms out of /metrics");
  serve->add_option("--sim-gpu-memory-gb", o->sim_gpu_memory_gb, "Simulated GPU memory")
      ->capture_default_str();
  serve
      ->add_option("--sim-load-seconds", o->sim_load_seconds,
                   "Simulated model load time before the server listens")
      ->capture_default_str();
  serve
      ->add_option("--sim-mean-output-tokens", o->sim_mean_output_tokens,
                   "Mean output length of requests that do not ignore EOS")
      ->capture_default_str();
  serve
      ->add_option("--sim-platform", o->sim_platform,
                   "Platform whose start-up checks to imitate: cuda or rocm")
      ->check(CLI::IsMember({"cuda", "rocm"}))
      ->capture_default_str();
  AddReleaseFlags(serve, o);
  serve
      ->add_option("--sim-prefill-per-token-s", l.prefill_per_token_s,
                   "Prefill seconds per token (8B model)")
      ->capture_default_str();
  serve
      ->add_option("--sim-prefill-quadratic-s", l.prefill_quadratic_s,
                   "Prefill seconds per token^2 (attention)")
      ->capture_default_str();
  serve->add_option("--sim-hbm-bytes-per-s", l.hbm_bytes_per_s, "GPU memory bandwidth")
      ->capture_default_str();
  serve->add_option("--sim-hbm-efficiency", l.hbm_efficiency, "Achieved fraction of HBM bandwidth")
      ->capture_default_str();
  serve->add_option("--sim-step-overhead-s", l.step_overhead_s, "Fixed cost of an engine step")
      ->capture_default_str();
  serve
      ->add_option("--sim-host-to-gpu-bytes-per-s", l.host_to_gpu_bytes_per_s,
                   "Pinned host to GPU copy bandwidth (CPU tier loads)")
      ->capture_default_str();
  serve
      ->add_option("--sim-disk-read-bytes-per-s", l.disk_read_bytes_per_s,
                   "Disk read bandwidth (NVMe tier loads)")
      ->capture_default_str();
  serve
      ->add_option("--sim-store-blocking-fraction", l.store_blocking_fraction,
                   "Share of external-cache stores that blocks the engine step (0: async)")
      ->capture_default_str();
}

absl::Status CheckRanges(const VllmServeOptions& o) {
  std::vector<std::string> problems;
  auto check = [&](bool ok, const char* flag) {
    if (!ok) problems.push_back(absl::StrCat("argument ", flag, ": out of range"));
  };
  check(o.port >= 0 && o.port <= 65535, "--port");
  check(o.block_size > 0, "--block-size");
  check(o.gpu_memory_utilization > 0 && o.gpu_memory_utilization <= 1,
        "--gpu-memory-utilization (0, 1]");
  check(o.num_gpu_blocks_override >= 0, "--num-gpu-blocks-override");
  check(o.max_num_seqs > 0, "--max-num-seqs");
  check(o.max_num_batched_tokens > 0, "--max-num-batched-tokens");
  check(o.tensor_parallel_size > 0, "--tensor-parallel-size");
  check(o.max_model_len >= 0, "--max-model-len");
  check(o.sim_time_scale > 0, "--sim-time-scale");
  check(o.sim_load_seconds >= 0, "--sim-load-seconds");
  check(o.sim_mean_output_tokens > 0, "--sim-mean-output-tokens");
  check(!o.sim_vllm_version.empty(), "--sim-vllm-version (a release)");
  const LatencyConstants& l = o.latency;
  check(l.prefill_per_token_s >= 0, "--sim-prefill-per-token-s");
  check(l.prefill_quadratic_s >= 0, "--sim-prefill-quadratic-s");
  check(l.hbm_bytes_per_s > 0, "--sim-hbm-bytes-per-s");
  check(l.hbm_efficiency > 0 && l.hbm_efficiency <= 1, "--sim-hbm-efficiency (0, 1]");
  check(l.step_overhead_s >= 0, "--sim-step-overhead-s");
  check(l.host_to_gpu_bytes_per_s > 0, "--sim-host-to-gpu-bytes-per-s");
  check(l.disk_read_bytes_per_s > 0, "--sim-disk-read-bytes-per-s");
  check(l.store_blocking_fraction >= 0 && l.store_blocking_fraction <= 1,
        "--sim-store-blocking-fraction [0, 1]");
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
}

// Combinations vLLM refuses at start.
absl::Status CheckCombinations(const VllmServeOptions& o) {
  if (o.disable_hybrid_kv_cache_manager && o.no_disable_hybrid_kv_cache_manager) {
    return absl::InvalidArgumentError(
        "argument --no-disable-hybrid-kv-cache-manager: not allowed with argument "
        "--disable-hybrid-kv-cache-manager");
  }
  // vllm/config/vllm.py@000fc94b: explicitly enabled while a connector without SupportsHMA
  // needs it off is a ValueError.
  if (o.no_disable_hybrid_kv_cache_manager && !o.kv_transfer_config.empty()) {
    return absl::InvalidArgumentError(
        "Hybrid KV cache manager was explicitly enabled but is not supported in this "
        "configuration. Consider omitting the --no-disable-hybrid-kv-cache-manager flag to let "
        "vLLM decide automatically.");
  }
  // vllm/entrypoints/openai/cli_args.py validate_parsed_serve_args.
  if (o.enable_auto_tool_choice && o.tool_call_parser.empty()) {
    return absl::InvalidArgumentError("--enable-auto-tool-choice requires --tool-call-parser");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<VllmFlagsResult> ParseVllmServeFlags(int argc, const char* const* argv) {
  VllmFlagsResult result;
  CLI::App app{"kvsim-vllm: a simulator of `vllm serve` for kvbench"};
  app.require_subcommand(1);
  CLI::App* serve = app.add_subcommand("serve", "Start the OpenAI-compatible API server");
  AddVllmFlags(serve, &result.options);
  AddSimFlags(serve, &result.options);
  // vLLM's argparse takes the multi-letter short form "-tp", which CLI11 cannot declare.
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) {
    std::string arg = argv[i];
    args.push_back(arg == "-tp" ? "--tensor-parallel-size" : arg);
  }
  try {
    app.parse(args);  // CLI11 takes the vector form in reverse order
  } catch (const CLI::CallForHelp&) {
    result.help = true;
    result.help_text = (serve->parsed() ? serve : &app)->help();
    return result;
  } catch (const CLI::ExtrasError& error) {
    // CLI11: "The following arguments were not expected: --foo"; vLLM (argparse):
    // "unrecognized arguments: --foo".
    absl::string_view what = error.what();
    size_t colon = what.find(": ");
    return absl::InvalidArgumentError(
        absl::StrCat("unrecognized arguments: ",
                     colon == absl::string_view::npos ? what : what.substr(colon + 2)));
  } catch (const CLI::ParseError& error) {
    return absl::InvalidArgumentError(error.what());
  }
  KV_RETURN_IF_ERROR(CheckRanges(result.options));
  KV_RETURN_IF_ERROR(CheckCombinations(result.options));
  return result;
}

absl::Status CheckRocmVisibleDevices(const char* hip_visible_devices,
                                     const char* cuda_visible_devices) {
  const std::string hip = hip_visible_devices == nullptr ? "" : hip_visible_devices;
  const std::string cuda = cuda_visible_devices == nullptr ? "" : cuda_visible_devices;
  if (hip.empty() || cuda.empty() || hip == cuda) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "Inconsistent GPU visibility env vars: HIP_VISIBLE_DEVICES='", hip,
      "' vs CUDA_VISIBLE_DEVICES='", cuda, "'. Please set only one, or ensure they match."));
}

bool HybridKvCacheManagerEnabled(const VllmServeOptions& options, const ModelSpec& model) {
  if (model.num_sliding_layers <= 0 && !model.hybrid_ssm) return false;
  if (options.disable_hybrid_kv_cache_manager) return false;
  return options.kv_transfer_config.empty();
}

absl::Status HybridSsmStartupError(const VllmServeOptions& options, const ModelSpec& model) {
  if (!model.hybrid_ssm || HybridKvCacheManagerEnabled(options, model)) return absl::OkStatus();
  return absl::FailedPreconditionError(
      "Failed to promote local KV cache specs to one unified type.");
}

absl::StatusOr<std::optional<std::string>> TopLevelVersionRequest(int argc,
                                                                  const char* const* argv) {
  std::string version = kDefaultSimVllmVersion;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--version" || arg == "-v") return std::optional<std::string>(version);
    if (!absl::StartsWith(arg, "--sim-")) return std::optional<std::string>();
    const size_t equals = arg.find('=');
    const absl::string_view name = arg.substr(0, equals);
    const bool next_is_value =
        equals == absl::string_view::npos && i + 1 < argc && !absl::StartsWith(argv[i + 1], "-");
    if (name == kSimVllmVersionFlag) {
      if (equals == absl::string_view::npos && !next_is_value) {
        return absl::InvalidArgumentError(
            absl::StrCat("argument ", kSimVllmVersionFlag, ": expected one argument"));
      }
      version =
          std::string(next_is_value ? absl::string_view(argv[i + 1]) : arg.substr(equals + 1));
      if (version.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("argument ", kSimVllmVersionFlag, ": empty release"));
      }
    }
    if (next_is_value) ++i;
  }
  return std::optional<std::string>();
}

EngineConfig MakeEngineConfig(const VllmServeOptions& options) {
  EngineConfig config;
  std::optional<ModelSpec> model = FindModel(options.model);
  if (!model.has_value()) {
    KV_LOG(WARNING) << "unknown model, simulating an 8B-shaped one model=" << options.model;
    model = DefaultModel();
  }
  config.model = *model;
  config.served_model_name = options.primary_name();
  config.block_size = options.block_size;
  config.hybrid_kv_cache_manager = HybridKvCacheManagerEnabled(options, config.model);
  config.num_gpu_blocks =
      options.num_gpu_blocks_override > 0
          ? options.num_gpu_blocks_override
          : GpuBlocksFromMemory(config.model, options.block_size, options.sim_gpu_memory_gb * 1e9,
                                options.gpu_memory_utilization, options.tensor_parallel_size,
                                config.hybrid_kv_cache_manager);
  config.enable_prefix_caching = options.enable_prefix_caching;
  config.max_num_seqs = options.max_num_seqs;
  config.max_num_batched_tokens = options.max_num_batched_tokens;
  config.max_model_len = options.max_model_len > 0 ? options.max_model_len : model->max_model_len;
  config.tensor_parallel_size = options.tensor_parallel_size;
  config.latency = options.latency;
  config.time_scale = options.sim_time_scale;
  config.seed = options.sim_seed;
  config.mean_output_tokens = options.sim_mean_output_tokens;
  config.external_query_counting = options.sim_external_counting;
  return config;
}

}  // namespace kvbench::sim
