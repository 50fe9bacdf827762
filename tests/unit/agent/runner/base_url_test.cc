#include "agent/runner/base_url.h"

#include <catch2/catch.hpp>
#include <string>

namespace kvbench::runner {
namespace {

TEST_CASE("kv-runner --base-url takes the server root or its OpenAI /v1 base", "[Runner]") {
  struct Row {
    const char* base_url;
    const char* root;
  };
  const Row rows[] = {
      {"http://127.0.0.1:8000", "http://127.0.0.1:8000"},
      {"http://127.0.0.1:8000/", "http://127.0.0.1:8000"},
      {"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000"},
      {"http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000"},
      {"https://vllm.example:443/v1", "https://vllm.example:443"},
      {"http://localhost", "http://localhost"},
  };
  for (const Row& row : rows) {
    INFO(row.base_url);
    absl::StatusOr<std::string> root = ServerRootFromBaseUrl(row.base_url);
    REQUIRE(root.ok());
    CHECK(*root == row.root);
  }
}

TEST_CASE("kv-runner --base-url with another path, a query or no scheme is refused by name", "[Runner]") {
  struct Row {
    const char* base_url;
    const char* why;
  };
  const Row rows[] = {
      {"http://h:8000/v2", "path \"/v2\" is neither empty nor /v1"},
      {"http://h:8000/v1/chat/completions", "path \"/v1/chat/completions\""},
      {"http://h:8000/api/v1", "path \"/api/v1\""},
      {"http://h:8000//", "path \"/\""},
      {"http://h:8000/v1?x=1", "has a query or fragment"},
      {"h:8000", "must start with http:// or https://"},
      {"ftp://h:8000", "must start with http:// or https://"},
      {"http:///v1", "has no host"},
  };
  for (const Row& row : rows) {
    INFO(row.base_url);
    absl::StatusOr<std::string> root = ServerRootFromBaseUrl(row.base_url);
    REQUIRE_FALSE(root.ok());
    CHECK(root.status().code() == absl::StatusCode::kInvalidArgument);
    const std::string message(root.status().message());
    CHECK_THAT(message, Catch::Contains(row.base_url));
    CHECK_THAT(message, Catch::Contains(row.why));
  }
}

}  // namespace
}  // namespace kvbench::runner
