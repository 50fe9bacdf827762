#include "agent/scenario/model_family.h"

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "agent/sim/engine/model_catalog.h"
#include "common/auth/token_verifier.h"
#include "common/json/validated_json.h"

namespace kvbench::agent {
namespace {

namespace fs = std::filesystem;

// vLLM's models that implement IsHybrid (attention beside Mamba, linear-attention or short-conv
// layers; vllm-project/vllm:vllm/model_executor/models/interfaces.py and e.g. jamba.py,
// bamba.py, falcon_h1.py, granitemoehybrid.py, nemotron_h.py, zamba2.py, plamo2.py, lfm2.py,
// qwen3_next.py, minimax_text_01.py).
constexpr const char* kHybridArchitectures[] = {
    "JambaForCausalLM",
    "BambaForCausalLM",
    "FalconH1ForCausalLM",
    "FalconH1MoEForCausalLM",
    "GraniteMoeHybridForCausalLM",
    "NemotronHForCausalLM",
    "Zamba2ForCausalLM",
    "Plamo2ForCausalLM",
    "Lfm2ForCausalLM",
    "Lfm2MoeForCausalLM",
    "Qwen3NextForCausalLM",
    "MiniMaxText01ForCausalLM",
    "Phi4FlashForCausalLM",
    "KimiLinearForCausalLM",
    "DeciLMForCausalLM",
};

// Layer kinds in config.json layer lists that are not attention.
bool IsStateLayer(const std::string& kind) {
  return absl::StrContains(kind, "mamba") || absl::StrContains(kind, "linear_attention") ||
         kind == "conv";
}

std::string HubCache() {
  if (const char* cache = std::getenv("HF_HUB_CACHE"); cache != nullptr && *cache != '\0') {
    return cache;
  }
  if (const char* home = std::getenv("HF_HOME"); home != nullptr && *home != '\0') {
    return absl::StrCat(home, "/hub");
  }
  const char* home = std::getenv("HOME");
  return absl::StrCat(home != nullptr ? home : "", "/.cache/huggingface/hub");
}

// The config.json of a hub-cached model id: refs/main's snapshot, else any snapshot's.
std::optional<std::string> CachedConfig(const std::string& model) {
  const fs::path repo =
      fs::path(HubCache()) / absl::StrCat("models--", absl::StrReplaceAll(model, {{"/", "--"}}));
  std::error_code error;
  if (absl::StatusOr<std::string> main_ref = ReadTextFile((repo / "refs" / "main").string());
      main_ref.ok()) {
    const fs::path config =
        repo / "snapshots" / std::string(absl::StripAsciiWhitespace(*main_ref)) / "config.json";
    if (fs::is_regular_file(config, error)) return config.string();
  }
  for (const fs::directory_entry& snapshot : fs::directory_iterator(repo / "snapshots", error)) {
    const fs::path config = snapshot.path() / "config.json";
    if (fs::is_regular_file(config, error)) return config.string();
  }
  return std::nullopt;
}

}  // namespace

ModelFamily FamilyOfConfig(const std::string& config_json) {
  ModelFamily family;
  const nlohmann::json config = nlohmann::json::parse(config_json, nullptr, false);
  if (!config.is_object()) return family;
  if (auto it = config.find("architectures");
      it != config.end() && it->is_array() && !it->empty() && it->front().is_string()) {
    family.architecture = it->front().get<std::string>();
  }
  for (const char* hybrid : kHybridArchitectures) {
    if (family.architecture == hybrid) {
      family.hybrid_ssm = true;
      family.evidence = absl::StrCat("architecture ", family.architecture);
      return family;
    }
  }
  for (const char* key : {"layer_types", "layers_block_type"}) {
    auto it = config.find(key);
    if (it == config.end() || !it->is_array()) continue;
    for (const nlohmann::json& kind : *it) {
      if (kind.is_string() && IsStateLayer(kind.get<std::string>())) {
        family.hybrid_ssm = true;
        family.evidence = absl::StrCat(key, " lists \"", kind.get<std::string>(), "\" layers");
        return family;
      }
    }
  }
  // NemotronH's "M-M-M*-..." (M = Mamba) and Bamba-style attention indices over Mamba layers.
  if (auto it = config.find("hybrid_override_pattern");
      it != config.end() && it->is_string() && absl::StrContains(it->get<std::string>(), "M")) {
    family.hybrid_ssm = true;
    family.evidence = "hybrid_override_pattern has Mamba (M) layers";
  } else if (config.contains("attn_layer_indices") && config.contains("mamba_d_state")) {
    family.hybrid_ssm = true;
    family.evidence = "attn_layer_indices with mamba_d_state (Mamba layers between them)";
  }
  return family;
}

std::optional<ModelFamily> ReadModelFamily(const std::string& model, bool simulated) {
  if (simulated) {
    std::optional<sim::ModelSpec> spec = sim::FindModel(model);
    if (!spec) return std::nullopt;
    ModelFamily family;
    family.architecture = spec->architectures;
    family.hybrid_ssm = spec->hybrid_ssm;
    if (family.hybrid_ssm) family.evidence = absl::StrCat("architecture ", family.architecture);
    family.source = "kvsim-vllm's model catalog";
    return family;
  }
  std::optional<std::string> path;
  if (absl::StartsWith(model, "/")) {
    path = (fs::path(model) / "config.json").string();
  } else {
    path = CachedConfig(model);
  }
  if (!path) return std::nullopt;
  absl::StatusOr<std::string> text = ReadTextFile(*path);
  if (!text.ok()) return std::nullopt;
  ModelFamily family = FamilyOfConfig(*text);
  family.source = *path;
  family.config_sha256 = Sha256Hex(*text);
  return family;
}

absl::Status RefuseHybridSsm(const std::string& model, const ModelFamily& family) {
  if (!family.hybrid_ssm) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "model ", model, " is a hybrid SSM model (", family.evidence, ", from ", family.source,
      "): vLLM serves it only with its hybrid KV cache manager, which kvbench turns off on "
      "every tier (--disable-hybrid-kv-cache-manager) so that the tiers keep the same GPU KV "
      "capacity, and which vLLM's LMCacheMPConnector cannot use; vLLM would fail at start-up on "
      "every tier. Pick an attention or sliding-window model (deploy/profiles/README.md)"));
}

}  // namespace kvbench::agent
