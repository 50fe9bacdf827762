#pragma once

#include <cstdint>
#include <vector>

#include "agent/sim/engine/engine_config.h"
#include "agent/sim/engine/model_catalog.h"

namespace kvbench::sim {

// One request's prefill chunk in a step: `new_tokens` computed on top of `context_tokens`
// already in its KV (prefix hits, external loads, earlier chunks).
struct PrefillChunk {
  int64_t context_tokens = 0;
  int64_t new_tokens = 0;
};

// What one engine step does, as far as its duration depends on it.
struct StepComposition {
  std::vector<PrefillChunk> prefills;
  int num_decodes = 0;                // requests generating one token each
  int64_t decode_context_tokens = 0;  // sum over them of the tokens each attends to
  int external_l1_chunks = 0;         // chunks copied from the external cache's CPU pool
  int external_l2_chunks = 0;         // chunks read from its disk first, then copied
  int stored_chunks = 0;              // chunks stored to the external cache
};

// The duration of an engine step in simulated seconds; pure. With TP = tensor parallel size,
// s = active parameters (billions) / 8 (the calibration model's size) and K = constants:
//
//   step = K.step_overhead_s
//        + sum over prefill chunks (c tokens in context, n new):
//              s / TP x [ n x K.prefill_per_token_s + K.prefill_quadratic_s x ((c+n)^2 - c^2) ]
//        + if any request decodes:
//              (weight bytes / TP + sum of decode contexts x KV bytes per token / TP)
//              / (K.hbm_bytes_per_s x K.hbm_efficiency)
//        + external load: (l1 + l2) x chunk bytes / TP / K.host_to_gpu_bytes_per_s
//                         + l2 x chunk bytes / K.disk_read_bytes_per_s
//        + K.store_blocking_fraction x stored x chunk bytes / TP / K.host_to_gpu_bytes_per_s
//
// Sources (reference/sim-calibration.md): prefill of n cold tokens on an H200 fits
// 5.7 ms + n x 26.1 us + n^2 x 0.49 ns within 4% ("Prefill"); the quadratic term written as
// (c+n)^2 - c^2 charges a chunk for attending to its cached context, so chunks summing to n cost
// exactly what one n-token prefill costs. The 5.7 ms eager-stack overhead is replaced by vLLM's
// per-step overhead. Decode reads all weights plus every decoding sequence's KV once per step
// ("Decode": 4.3 TB/s x 0.7, ~6 ms at batch 1 and ~17 ms at batch 32 with 8k contexts for 8B).
// Chunk bytes = chunk size x KV bytes per token of the whole model; each GPU copies its 1/TP
// share over its own host link (pinned host -> GPU 55.5 GB/s, "Host <-> GPU copies"), while disk
// reads of the whole chunk share one drive ("Disk": 2.0 GB/s here, 3-7 GB/s on local NVMe).
// Stores are asynchronous in LMCache; they add time only with store_blocking_fraction > 0 (the
// GPU -> host copy runs at 55.3 GB/s, within 0.4% of the host -> GPU rate used for it).
class LatencyModel {
 public:
  LatencyModel(const ModelSpec& model, const LatencyConstants& constants, int tensor_parallel_size,
               int64_t chunk_bytes);

  double PrefillChunkSeconds(int64_t context_tokens, int64_t new_tokens) const;
  // The memory-bound term of a step in which at least one request decodes.
  double DecodeSeconds(int64_t decode_context_tokens) const;
  double ExternalLoadSeconds(int l1_chunks, int l2_chunks) const;
  double StoreSeconds(int chunks) const;
  double StepSeconds(const StepComposition& step) const;

  const LatencyConstants& constants() const { return constants_; }

 private:
  const LatencyConstants constants_;
  const double tensor_parallel_size_;
  const double compute_scale_;  // active params / 8B / TP
  const double weight_bytes_per_gpu_;
  const double kv_bytes_per_token_per_gpu_;
  const double chunk_bytes_;  // whole model
};

}  // namespace kvbench::sim
