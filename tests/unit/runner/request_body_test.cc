#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "agent/runner/request_body.h"

namespace kvbench::runner {
namespace {

using Json = nlohmann::json;

TEST_CASE("Runner chat body follows the replay semantics", "[Runner]") {
  Json messages = Json::array({{{"role", "user"}, {"content", "hi"}}});
  struct Row {
    const char* name;
    int osl;
    int recorded;
    Json max_tokens;  // null: absent
    bool ignore_eos;
  };
  std::vector<Row> rows = {
      {"recorded length", 0, 37, 37, false},
      {"osl overrides", 128, 37, 128, true},
      {"unknown recorded length omits max_tokens", 0, 0, nullptr, false},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    Json body = Json::parse(BuildChatBody("m", messages, row.osl, row.recorded));
    CHECK(body["model"] == "m");
    CHECK(body["messages"] == messages);
    CHECK(body["stream"] == true);
    CHECK(body["stream_options"]["include_usage"] == true);
    CHECK(body.contains("max_tokens") == !row.max_tokens.is_null());
    if (!row.max_tokens.is_null()) CHECK(body["max_tokens"] == row.max_tokens);
    CHECK(body.contains("ignore_eos") == row.ignore_eos);
  }
}

TEST_CASE("Runner tokenize body and warmup prefixes", "[Runner]") {
  Json messages = Json::array({{{"role", "user"}, {"content", "x"}}});
  CHECK(Json::parse(BuildTokenizeBody("m", messages)) ==
        Json{{"model", "m"}, {"messages", messages}});
  std::string first = WarmupMessages(0, 7)[0]["content"];
  std::string second = WarmupMessages(1, 7)[0]["content"];
  CHECK(first != second);
  CHECK(first.substr(0, 20) != second.substr(0, 20));
}

}  // namespace
}  // namespace kvbench::runner
