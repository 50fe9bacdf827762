#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kvbench::sim {

// The shape of a model as far as the simulator's KV and latency model need it.
struct ModelSpec {
  std::string name;         // canonical HF id, e.g. "meta-llama/Llama-3.1-8B-Instruct"
  int num_layers = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int kv_dtype_bytes = 2;   // bf16
  double params_billions = 0;  // total parameters (weights read every decode step)
  double active_params_billions = 0;  // per token (MoE models activate fewer)
  int max_model_len = 0;    // the model's context window
  // Bytes per weight as shipped: 2 for bf16; gpt-oss ships its MoE experts in MXFP4, so its
  // checkpoints average ~0.56-0.66 bytes per parameter (65 GB for 117B, 13.8 GB for 21B).
  double weight_bytes_per_param = 2.0;

  // 2 (K and V) x layers x KV heads x head dim x dtype bytes (reference/sim-calibration.md).
  int64_t KvBytesPerToken() const {
    return int64_t{2} * num_layers * num_kv_heads * head_dim * kv_dtype_bytes;
  }
  int64_t WeightBytes() const {
    return static_cast<int64_t>(params_billions * 1e9 * weight_bytes_per_param);
  }
};

// The table of known models: Llama-3.1-8B/70B, Qwen3-8B/32B, Mistral-7B, gpt-oss-20b/120b.
// Matched by full id or by the name after the last '/', case-insensitively; unknown → nullopt
// (the simulator then falls back to an 8B-shaped model, and says so in its log).
std::optional<ModelSpec> FindModel(const std::string& model);
ModelSpec DefaultModel();

}  // namespace kvbench::sim
