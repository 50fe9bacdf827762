#include "agent/scenario/model_family.h"

#include <catch2/catch.hpp>

namespace kvbench::agent {
namespace {

// vLLM's IsHybrid models need its hybrid KV cache manager.
TEST_CASE("A config.json names a hybrid SSM model by its architecture or its layers") {
  const ModelFamily bamba = FamilyOfConfig(
      R"({"architectures": ["BambaForCausalLM"], "model_type": "bamba", "attn_layer_indices": [9]})");
  CHECK(bamba.architecture == "BambaForCausalLM");
  CHECK(bamba.hybrid_ssm);
  CHECK(bamba.evidence == "architecture BambaForCausalLM");

  const ModelFamily layers = FamilyOfConfig(
      R"({"architectures": ["SomeNewHybridForCausalLM"],
          "layer_types": ["full_attention", "linear_attention", "full_attention"]})");
  CHECK(layers.hybrid_ssm);
  CHECK(layers.evidence == "layer_types lists \"linear_attention\" layers");

  const ModelFamily nemotron =
      FamilyOfConfig(R"({"architectures": ["X"], "hybrid_override_pattern": "M-M-M*-M"})");
  CHECK(nemotron.hybrid_ssm);

  // Attention and sliding-window models are not: gpt-oss alternates sliding and full attention.
  const ModelFamily gpt_oss = FamilyOfConfig(
      R"({"architectures": ["GptOssForCausalLM"],
          "layer_types": ["sliding_attention", "full_attention"]})");
  CHECK(gpt_oss.architecture == "GptOssForCausalLM");
  CHECK_FALSE(gpt_oss.hybrid_ssm);
  CHECK_FALSE(FamilyOfConfig(R"({"architectures": ["LlamaForCausalLM"]})").hybrid_ssm);
  CHECK_FALSE(FamilyOfConfig("not json").hybrid_ssm);
  CHECK(FamilyOfConfig("[1,2]").architecture.empty());
}

TEST_CASE("A hybrid SSM model is refused naming the model, the evidence and why") {
  ModelFamily family;
  family.architecture = "JambaForCausalLM";
  family.hybrid_ssm = true;
  family.evidence = "architecture JambaForCausalLM";
  family.source = "/models/jamba/config.json";
  const absl::Status refused = RefuseHybridSsm("/models/jamba", family);
  CHECK(refused.code() == absl::StatusCode::kFailedPrecondition);
  const std::string message(refused.message());
  CHECK(message.find("model /models/jamba is a hybrid SSM model (architecture JambaForCausalLM, "
                     "from /models/jamba/config.json)") != std::string::npos);
  CHECK(message.find("--disable-hybrid-kv-cache-manager") != std::string::npos);
  family.hybrid_ssm = false;
  CHECK(RefuseHybridSsm("/models/llama", family).ok());
}

TEST_CASE("The simulator's catalog gives a simulated model's family") {
  const std::optional<ModelFamily> llama =
      ReadModelFamily("meta-llama/Llama-3.1-8B-Instruct", /*simulated=*/true);
  REQUIRE(llama.has_value());
  CHECK(llama->architecture == "LlamaForCausalLM");
  CHECK_FALSE(llama->hybrid_ssm);
  CHECK(llama->source == "kvsim-vllm's model catalog");
  CHECK_FALSE(ReadModelFamily("no/such-model-anywhere", /*simulated=*/true).has_value());
}

}  // namespace
}  // namespace kvbench::agent
