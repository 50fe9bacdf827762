// GET /v1/models' answer read into model ids, and the message kv-runner exits with when the
// server does not serve --model.

#include "agent/runner/served_models.h"

#include <catch2/catch.hpp>

namespace kvbench::runner {
namespace {

TEST_CASE("ParseServedModels reads the ids of vLLM's model list in order", "[Runner]") {
  // vLLM's ModelList shape (kvsim-vllm's answer, trimmed).
  absl::StatusOr<std::vector<std::string>> ids = ParseServedModels(
      R"({"object":"list","data":[{"id":"meta-llama/Llama-3.1-8B-Instruct","object":"model",)"
      R"("root":"meta-llama/Llama-3.1-8B-Instruct","max_model_len":131072},{"id":"llama-8b"}]})");
  REQUIRE(ids.ok());
  CHECK(*ids == std::vector<std::string>{"meta-llama/Llama-3.1-8B-Instruct", "llama-8b"});
  ids = ParseServedModels(R"({"object":"list","data":[]})");
  REQUIRE(ids.ok());
  CHECK(ids->empty());
}

TEST_CASE("ParseServedModels refuses what is not a model list", "[Runner]") {
  for (const char* body : {"", "not json", "[]", R"({"data":{}})", R"({"data":[{"name":"x"}]})",
                           R"({"data":[{"id":7}]})"}) {
    INFO(body);
    CHECK(ParseServedModels(body).status().code() == absl::StatusCode::kInvalidArgument);
  }
}

TEST_CASE("UnknownModelMessage names what to pass as --model", "[Runner]") {
  CHECK(
      UnknownModelMessage("llama", "http://127.0.0.1:8000", {"meta-llama/Llama-3.1-8B-Instruct"}) ==
      "--model llama: http://127.0.0.1:8000 answered 404: it serves no model of that name; it "
      "serves meta-llama/Llama-3.1-8B-Instruct (GET /v1/models): pass that as --model");
  CHECK(UnknownModelMessage("x", "http://h:1", {"a", "b"}) ==
        "--model x: http://h:1 answered 404: it serves no model of that name; it serves a, b "
        "(GET /v1/models): pass one of them as --model");
  CHECK(UnknownModelMessage("x", "http://h:1", {}) ==
        "--model x: http://h:1 answered 404: it serves no model of that name (GET /v1/models "
        "lists none)");
}

}  // namespace
}  // namespace kvbench::runner
