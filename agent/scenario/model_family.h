#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace kvbench::agent {

// What the agent can tell about a job's model before it starts an engine (a hybrid SSM
// model is refused then).
struct ModelFamily {
  std::string architecture;   // config.json's architectures[0] ("BambaForCausalLM"); "" unknown
  bool hybrid_ssm = false;    // Mamba/linear-attention layers beside attention ones
  std::string evidence;       // why hybrid_ssm: "architecture BambaForCausalLM", "layer_types ..."
  std::string source;         // where it was read: "<dir>/config.json", "kvsim-vllm's catalog"
  std::string config_sha256;  // of the config.json read; "" for the simulator's catalog
};

// Where to look for a model's config.json: a model given as a path (under model_roots, already
// checked) → <path>/config.json; an id "org/name" → the Hugging Face hub cache vLLM would load it
// from ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub:
// models--org--name/snapshots/<rev>/config.json, refs/main's revision first); a simulated engine
// → kvsim-vllm's catalog (sim::FindModel). nullopt when none is found: a real engine will
// download it, and decides at start.
std::optional<ModelFamily> ReadModelFamily(const std::string& model, bool simulated);

// The family of a parsed config.json (pure): hybrid when the architecture is one of vLLM's
// IsHybrid models or the config lays out Mamba/linear-attention layers.
ModelFamily FamilyOfConfig(const std::string& config_json);

// OK unless `family` is a hybrid SSM model: FAILED_PRECONDITION naming the model, the evidence
// and why kvbench cannot run it. vLLM serves those only with its hybrid KV cache manager, which
// kvbench turns off on every tier so the tiers keep equal GPU KV capacity (and vLLM's
// LMCacheMPConnector, without SupportsHMA, turns off on the offload tiers anyway): without it
// vLLM cannot unify their Mamba and attention KV specs and the engine fails at start
// (vllm-project/vllm:vllm/config/vllm.py, "hybrid SSM models (e.g. Jamba, Bamba) require HMA and
// will fail at startup without it"; vllm/v1/core/kv_cache_utils.py unify_hybrid_kv_cache_specs).
absl::Status RefuseHybridSsm(const std::string& model, const ModelFamily& family);

}  // namespace kvbench::agent
