#include "agent/sim/engine/model_catalog.h"

#include <catch2/catch.hpp>
#include <string>

#include "agent/sim/engine/engine_config.h"

namespace kvbench::sim {
namespace {

TEST_CASE("ModelCatalog finds models by full id or name in any case", "[sim_engine]") {
  struct Case {
    std::string query;
    std::string canonical;
  };
  const Case cases[] = {
      {"meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"},
      {"Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"},
      {"llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct"},
      {"meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"},
      {"/models/Llama-3.1-8B-Instruct/", "meta-llama/Llama-3.1-8B-Instruct"},
      {"meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-70B-Instruct"},
      {"Qwen/Qwen3-8B", "Qwen/Qwen3-8B"},
      {"qwen3-32b", "Qwen/Qwen3-32B"},
      {"Qwen3-32B-Instruct", "Qwen/Qwen3-32B"},
      {"mistralai/Mistral-7B-Instruct-v0.3", "mistralai/Mistral-7B-Instruct-v0.3"},
      {"MISTRAL-7B-V0.3", "mistralai/Mistral-7B-Instruct-v0.3"},
      {"openai/gpt-oss-20b", "openai/gpt-oss-20b"},
      {"GPT-OSS-120B", "openai/gpt-oss-120b"},
      {"ibm-ai-platform/Bamba-9B-v2", "ibm-ai-platform/Bamba-9B-v2"},
      {"bamba-9b-v2", "ibm-ai-platform/Bamba-9B-v2"},
  };
  for (const Case& c : cases) {
    INFO(c.query);
    const auto model = FindModel(c.query);
    REQUIRE(model.has_value());
    CHECK(model->name == c.canonical);
  }
  CHECK_FALSE(FindModel("gpt-4.1").has_value());
  CHECK_FALSE(FindModel("").has_value());
  CHECK_FALSE(FindModel("Llama-3.1-8").has_value());
  CHECK(DefaultModel().name == "meta-llama/Llama-3.1-8B-Instruct");
}

TEST_CASE("ModelCatalog shapes give the calibrated KV bytes per token", "[sim_engine]") {
  struct Case {
    std::string model;
    int64_t kv_bytes_per_token;
    double params;
    double active;
    int max_model_len;
  };
  // reference/sim-calibration.md "KV cache size": 131,072 / 147,456 / 327,680 B.
  const Case cases[] = {
      {"Llama-3.1-8B-Instruct", 131072, 8.0, 8.0, 131072},
      {"Qwen3-8B", 147456, 8.2, 8.2, 40960},
      {"Llama-3.1-70B-Instruct", 327680, 70.6, 70.6, 131072},
      {"Qwen3-32B", 262144, 32.8, 32.8, 40960},
      {"Mistral-7B-Instruct-v0.3", 131072, 7.25, 7.25, 32768},
      {"gpt-oss-20b", 49152, 21.0, 3.6, 131072},
      {"gpt-oss-120b", 73728, 117.0, 5.1, 131072},
      {"Bamba-9B-v2", 12288, 9.78, 9.78, 4096},  // its 3 attention layers of 32
  };
  for (const Case& c : cases) {
    INFO(c.model);
    const auto model = FindModel(c.model);
    REQUIRE(model.has_value());
    CHECK(model->KvBytesPerToken() == c.kv_bytes_per_token);
    CHECK(model->params_billions == c.params);
    CHECK(model->active_params_billions == c.active);
    CHECK(model->max_model_len == c.max_model_len);
  }
  CHECK(FindModel("Llama-3.1-8B")->WeightBytes() == int64_t{16'000'000'000});
  // MXFP4 experts: gpt-oss-120b fits one 141 GB GPU.
  CHECK(FindModel("gpt-oss-120b")->WeightBytes() < int64_t{70'000'000'000});
}

TEST_CASE("ModelCatalog names each model's HF architecture and marks the hybrid SSM one",
          "[sim_engine]") {
  struct Case {
    std::string model;
    std::string architectures;
    bool hybrid_ssm;
  };
  const Case cases[] = {
      {"Llama-3.1-8B-Instruct", "LlamaForCausalLM", false},
      {"Llama-3.1-70B-Instruct", "LlamaForCausalLM", false},
      {"Qwen3-8B", "Qwen3ForCausalLM", false},
      {"Qwen3-32B", "Qwen3ForCausalLM", false},
      {"Mistral-7B-Instruct-v0.3", "MistralForCausalLM", false},
      {"gpt-oss-20b", "GptOssForCausalLM", false},  // sliding-window, not SSM
      {"gpt-oss-120b", "GptOssForCausalLM", false},
      {"ibm-ai-platform/Bamba-9B-v2", "BambaForCausalLM", true},
  };
  for (const Case& c : cases) {
    INFO(c.model);
    const auto model = FindModel(c.model);
    REQUIRE(model.has_value());
    CHECK(model->architectures == c.architectures);
    CHECK(model->hybrid_ssm == c.hybrid_ssm);
    CHECK((model->num_mamba_layers > 0) == c.hybrid_ssm);
  }
  CHECK(FindModel("Bamba-9B-v2")->num_mamba_layers == 29);
  CHECK(DefaultModel().architectures == "LlamaForCausalLM");
}

TEST_CASE("ModelCatalog GpuBlocksFromMemory subtracts weights and splits KV over TP",
          "[sim_engine]") {
  const ModelSpec llama8b = *FindModel("Llama-3.1-8B");
  // (141e9 x 0.9 - 16e9) / (16 x 131072) = 52,881.2
  CHECK(GpuBlocksFromMemory(llama8b, 16, 141e9, 0.9, 1) == 52881);
  // TP=2: (126.9e9 - 8e9) / (16 x 65536) = 113,391.9
  CHECK(GpuBlocksFromMemory(llama8b, 16, 141e9, 0.9, 2) == 113391);
  const ModelSpec llama70b = *FindModel("Llama-3.1-70B");
  CHECK(GpuBlocksFromMemory(llama70b, 16, 141e9, 0.9, 1) == 0);  // 141.2 GB of weights
  CHECK(GpuBlocksFromMemory(llama70b, 16, 141e9, 0.9, 4) > 0);
  CHECK(GpuBlocksFromMemory(*FindModel("gpt-oss-120b"), 16, 141e9, 0.9, 1) > 0);
  CHECK(GpuBlocksFromMemory(llama8b, 0, 141e9, 0.9, 1) == 0);
}

}  // namespace
}  // namespace kvbench::sim
