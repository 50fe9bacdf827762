#include "agent/sim/engine/model_catalog.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace kvbench::sim {
namespace {

// Shapes from each model's config.json (num_hidden_layers, num_key_value_heads, head_dim) and
// parameter counts from its model card. KV bytes per token follow from ModelSpec::KvBytesPerToken
// (2 x layers x KV heads x head dim x 2 bytes, reference/sim-calibration.md "KV cache size":
// 131,072 B for Llama-3.1-8B, 147,456 B for Qwen3-8B, 327,680 B for Llama-3.1-70B). All bf16 KV.
// gpt-oss alternates sliding-window (128-token) and full attention layers (config.json
// layer_types), so half its layers are sliding; it renders through harmony. KvBytesPerToken counts
// every layer as full attention (what vLLM allocates with the hybrid KV cache manager off);
// with it on, blocks span half the layers (ModelSpec::KvLayersPerBlock). "architectures" is
// config.json's first entry, the class vLLM's model registry loads.
struct CatalogEntry {
  const char* name;
  const char* architectures;
  int num_layers;
  int num_kv_heads;
  int head_dim;
  double params_billions;
  double active_params_billions;
  int max_model_len;
  double weight_bytes_per_param;
  int num_sliding_layers;
  int sliding_window;
  bool harmony;
  int num_mamba_layers;  // > 0: a hybrid SSM model
};

constexpr double kBf16 = 2.0;
// MXFP4 experts + bf16 attention/embeddings: 13.8 GB / 21B and 65.3 GB / 117B as shipped.
constexpr double kGptOss20bBytesPerParam = 0.66;
constexpr double kGptOss120bBytesPerParam = 0.56;

constexpr int kGptOssSlidingWindow = 128;

// Bamba-9B (ibm-ai-platform), a Mamba2/attention hybrid: 32 layers, hidden 4096 over 32 heads
// (head dim 128), 8 KV heads, 9.78B parameters, context 4096 (the Bamba-9B model card's table);
// attention only at config.json attn_layer_indices [9, 18, 27], the other 29 layers Mamba2.
// Assumed, not read: that the v2 checkpoint keeps v1's shape (its card does not restate it) and
// that config.json's max_position_embeddings matches the card's context. KV per token comes from
// the 3 attention layers only: 2 x 3 x 8 x 128 x 2 = 12,288 B.
constexpr int kBambaAttentionLayers = 3;
constexpr int kBambaContext = 4096;

constexpr CatalogEntry kCatalog[] = {
    {"meta-llama/Llama-3.1-8B-Instruct", "LlamaForCausalLM", 32, 8, 128, 8.0, 8.0, 131072, kBf16, 0,
     0, false, 0},
    {"meta-llama/Llama-3.1-70B-Instruct", "LlamaForCausalLM", 80, 8, 128, 70.6, 70.6, 131072, kBf16,
     0, 0, false, 0},
    {"Qwen/Qwen3-8B", "Qwen3ForCausalLM", 36, 8, 128, 8.2, 8.2, 40960, kBf16, 0, 0, false, 0},
    {"Qwen/Qwen3-32B", "Qwen3ForCausalLM", 64, 8, 128, 32.8, 32.8, 40960, kBf16, 0, 0, false, 0},
    {"mistralai/Mistral-7B-Instruct-v0.3", "MistralForCausalLM", 32, 8, 128, 7.25, 7.25, 32768,
     kBf16, 0, 0, false, 0},
    {"openai/gpt-oss-20b", "GptOssForCausalLM", 24, 8, 64, 21.0, 3.6, 131072,
     kGptOss20bBytesPerParam, 12, kGptOssSlidingWindow, true, 0},
    {"openai/gpt-oss-120b", "GptOssForCausalLM", 36, 8, 64, 117.0, 5.1, 131072,
     kGptOss120bBytesPerParam, 18, kGptOssSlidingWindow, true, 0},
    {"ibm-ai-platform/Bamba-9B-v2", "BambaForCausalLM", 32, 8, 128, 9.78, 9.78, kBambaContext,
     kBf16, 0, 0, false, 32 - kBambaAttentionLayers},
};

ModelSpec ToSpec(const CatalogEntry& entry) {
  ModelSpec spec;
  spec.name = entry.name;
  spec.architectures = entry.architectures;
  spec.num_layers = entry.num_layers;
  spec.num_kv_heads = entry.num_kv_heads;
  spec.head_dim = entry.head_dim;
  spec.params_billions = entry.params_billions;
  spec.active_params_billions = entry.active_params_billions;
  spec.max_model_len = entry.max_model_len;
  spec.weight_bytes_per_param = entry.weight_bytes_per_param;
  spec.num_sliding_layers = entry.num_sliding_layers;
  spec.sliding_window = entry.sliding_window;
  spec.harmony = entry.harmony;
  spec.num_mamba_layers = entry.num_mamba_layers;
  spec.hybrid_ssm = entry.num_mamba_layers > 0;
  return spec;
}

// The comparable form of a model id or path: the part after the last '/', lower case, without
// "-instruct" and without the "meta-" of older Llama ids ("Meta-Llama-3.1-8B-Instruct").
std::string MatchKey(absl::string_view model) {
  while (absl::ConsumeSuffix(&model, "/")) {
  }
  const size_t slash = model.rfind('/');
  if (slash != absl::string_view::npos) model.remove_prefix(slash + 1);
  std::string key = absl::AsciiStrToLower(model);
  key = absl::StrReplaceAll(key, {{"-instruct", ""}});
  absl::string_view view(key);
  absl::ConsumePrefix(&view, "meta-");
  return std::string(view);
}

}  // namespace

std::optional<ModelSpec> FindModel(const std::string& model) {
  const std::string key = MatchKey(model);
  if (key.empty()) return std::nullopt;
  for (const CatalogEntry& entry : kCatalog) {
    if (MatchKey(entry.name) == key) return ToSpec(entry);
  }
  return std::nullopt;
}

ModelSpec DefaultModel() { return ToSpec(kCatalog[0]); }

}  // namespace kvbench::sim
