#pragma once

#include <cstdint>

#include "agent/sim/engine/model_catalog.h"

namespace kvbench::sim {

// Hardware and latency constants of the simulated engine. Every default names its source; each
// is overridable by a --sim-* flag of kvsim-vllm.
struct LatencyConstants {
  // Prefill time of n uncached tokens = overhead + n x per_token + n^2 x quadratic, for an 8B
  // model; the linear and quadratic terms scale with active parameters / 8e9.
  // Fit of H200 measurements within 4% (reference/sim-calibration.md "Prefill"); the 5.7 ms
  // eager-framework overhead is replaced by vLLM's much smaller per-step overhead below.
  double prefill_per_token_s = 26.1e-6;
  double prefill_quadratic_s = 0.49e-9;
  // Decode step = (weights + sum of context KV bytes) / (HBM bandwidth x efficiency) + overhead
  // (reference/sim-calibration.md "Decode": H200 ~4.3 TB/s device copies, efficiency ~0.7, ~1 ms).
  double hbm_bytes_per_s = 4.3e12;
  double hbm_efficiency = 0.7;
  double step_overhead_s = 1e-3;
  // Loading externally cached KV: pinned host → GPU 55.5 GB/s (reference/sim-calibration.md
  // "Host ↔ GPU copies"); disk reads 2.0 GB/s as measured on the calibration host (a local NVMe
  // is 3-7 GB/s: set --sim-disk-read-gbps).
  double host_to_gpu_bytes_per_s = 55.5e9;
  double disk_read_bytes_per_s = 2.0e9;
  // GPU → pinned host when storing chunks to the external cache (55.3 GB/s, same source); stores
  // are asynchronous in LMCache, so they do not add to step time unless this is set above zero.
  double store_blocking_fraction = 0.0;
};

// What vllm:external_prefix_cache_queries_total counts for a new request that asks the KV
// connector (the hits are the tokens the connector will load either way). The scheduler's stats
// moved between vLLM generations:
// - kPromptMinusLocal: the prompt tokens the GPU prefix cache did not hit, recorded after the
//   request's blocks are allocated (vllm-project/vllm:vllm/v1/core/sched/scheduler.py@00024d31
//   and @b4622cf9, connector_prefix_cache_queries; reference/vllm.md: after PR #30522).
// - kWholePrompt: every prompt token, recorded when the request joins the running batch
//   (_update_connector_prefix_cache_stats records num_tokens=request.num_tokens; a copy of that
//   scheduler generation is (idx 52747530408), no commit readable; reference/vllm.md: v0.11-0.12).
enum class ExternalQueryCounting { kPromptMinusLocal, kWholePrompt };

struct EngineConfig {
  ModelSpec model;
  std::string served_model_name;
  int block_size = 16;         // vLLM --block-size default on CUDA
  int64_t num_gpu_blocks = 0;  // from --num-gpu-blocks-override or memory (see below)
  // vLLM's hybrid KV cache manager is on for this model (a sliding-window model without
  // --disable-hybrid-kv-cache-manager and without a connector): blocks from memory span fewer
  // layers, so there are more of them. The engine holds context in full-attention blocks only:
  // the sliding-window group's few blocks per running request are not simulated.
  bool hybrid_kv_cache_manager = false;
  bool enable_prefix_caching = true;  // vLLM V1 default
  int max_num_seqs = 256;             // vLLM V1 default on H100/H200-class GPUs
  int max_num_batched_tokens = 8192;  // vLLM V1 chunked-prefill token budget per step
  int max_model_len = 0;              // 0: the model's
  int tensor_parallel_size = 1;
  LatencyConstants latency;
  // Real seconds per simulated second (0.01 = 100x faster than real time).
  double time_scale = 1.0;
  uint64_t seed = 0;
  // Mean output length when a request does not ignore EOS: lengths are drawn (seeded) up to
  // max_tokens around this mean, like a model that sometimes stops early.
  int mean_output_tokens = 256;
  ExternalQueryCounting external_query_counting = ExternalQueryCounting::kPromptMinusLocal;
};

// GPU blocks from memory when no override is given: (gpu_memory_bytes x utilization - weights /
// TP share) / (block_size x KV bytes per token of the layers one block spans / TP). H200: 141 GB.
// With the hybrid KV cache manager a block spans model.KvLayersPerBlock(true) layers.
int64_t GpuBlocksFromMemory(const ModelSpec& model, int block_size, double gpu_memory_bytes,
                            double gpu_memory_utilization, int tensor_parallel_size,
                            bool hybrid_kv_cache_manager = false);

}  // namespace kvbench::sim
