#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kvbench::sim {

// The shape of a model as far as the simulator's KV and latency model need it.
struct ModelSpec {
  std::string name;  // canonical HF id, e.g. "meta-llama/Llama-3.1-8B-Instruct"
  // config.json "architectures"[0], the class vLLM's model registry loads ("LlamaForCausalLM",
  // "BambaForCausalLM", "GptOssForCausalLM").
  std::string architectures;
  int num_layers = 0;  // decoder layers of every kind (num_hidden_layers)
  int num_kv_heads = 0;
  int head_dim = 0;
  int kv_dtype_bytes = 2;             // bf16
  double params_billions = 0;         // total parameters (weights read every decode step)
  double active_params_billions = 0;  // per token (MoE models activate fewer)
  int max_model_len = 0;              // the model's context window
  // Bytes per weight as shipped: 2 for bf16; gpt-oss ships its MoE experts in MXFP4, so its
  // checkpoints average ~0.56-0.66 bytes per parameter (65 GB for 117B, 13.8 GB for 21B).
  double weight_bytes_per_param = 2.0;
  // Sliding-window attention layers (config.json layer_types / sliding_window); 0 = none. Only
  // they make vLLM's hybrid KV cache manager matter (KvLayersPerBlock).
  int num_sliding_layers = 0;
  int sliding_window = 0;  // tokens
  // Mamba (SSM) layers of a Mamba/attention hybrid (config.json: the layers not in
  // attn_layer_indices); 0 = none. They keep a fixed-size state per request instead of KV per
  // token, so KvBytesPerToken counts the attention layers only (the state is not simulated).
  int num_mamba_layers = 0;
  // A hybrid SSM model (Bamba, Jamba...): vLLM serves it only with its hybrid KV cache manager.
  // Without it (--disable-hybrid-kv-cache-manager, or a KV connector that turns it off) vLLM
  // cannot put Mamba and attention layers in one KV cache spec and fails at start-up
  // (vllm-project/vllm:vllm/v1/core/kv_cache_utils.py@bbf906a8, unify_hybrid_kv_cache_specs;
  // kvsim-vllm exits the same way, HybridSsmStartupError in agent/sim/vllm/vllm_flags.h).
  bool hybrid_ssm = false;
  // Rendered through the harmony format (HF model_type "gpt_oss"): vLLM then handles tool calls
  // itself, so tool_choice "auto" needs no --enable-auto-tool-choice.
  bool harmony = false;

  // 2 (K and V) x attention layers x KV heads x head dim x dtype bytes
  // (reference/sim-calibration.md); attention layers are all layers but the Mamba ones.
  int64_t KvBytesPerToken() const {
    return int64_t{2} * (num_layers - num_mamba_layers) * num_kv_heads * head_dim * kv_dtype_bytes;
  }
  // Layers whose KV one GPU block holds. Without the hybrid KV cache manager (or without sliding
  // layers) every layer is treated as full attention and a block spans all of them. With it,
  // vLLM groups layers by attention type into groups of equal size (the smaller type's layer
  // count; gpt-oss alternates, so 12 + 12 for 20b) and a block spans one group; the pool then has
  // num_layers / group size times as many blocks, and a request's full-attention group grows with
  // its context while its sliding group stays near the window
  // (vllm-project/vllm:vllm/v1/core/kv_cache_utils.py, uniform-page-size grouping).
  int KvLayersPerBlock(bool hybrid_kv_cache_manager) const {
    if (!hybrid_kv_cache_manager || num_sliding_layers <= 0 || num_sliding_layers >= num_layers) {
      return num_layers;
    }
    const int full_layers = num_layers - num_sliding_layers;
    return full_layers < num_sliding_layers ? full_layers : num_sliding_layers;
  }
  int64_t WeightBytes() const {
    return static_cast<int64_t>(params_billions * 1e9 * weight_bytes_per_param);
  }
};

// The table of known models: Llama-3.1-8B/70B, Qwen3-8B/32B, Mistral-7B, gpt-oss-20b/120b, and
// the Mamba/attention hybrid Bamba-9B-v2 (hybrid_ssm).
// Matched by full id or by the name after the last '/', case-insensitively; unknown → nullopt
// (the simulator then falls back to an 8B-shaped model, and says so in its log).
std::optional<ModelSpec> FindModel(const std::string& model);
ModelSpec DefaultModel();

}  // namespace kvbench::sim
