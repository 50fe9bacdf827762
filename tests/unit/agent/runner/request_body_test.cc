#include "agent/runner/request_body.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

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
      // osl 0: exactly the recorded length (ignore_eos), equal work on every tier.
      {"recorded length", 0, 37, 37, true},
      {"osl overrides", 128, 37, 128, true},
      {"osl with no recorded length", 64, 0, 64, true},
      {"unknown recorded length omits max_tokens and ignore_eos", 0, 0, nullptr, false},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    BodyOptions options;
    options.model = "m";
    options.osl = row.osl;
    Json body = Json::parse(BuildChatBody(options, messages, Json::array(), row.recorded));
    CHECK(body["model"] == "m");
    CHECK(body["messages"] == messages);
    CHECK(body["stream"] == true);
    CHECK(body["stream_options"]["include_usage"] == true);
    CHECK(body.contains("max_tokens") == !row.max_tokens.is_null());
    if (!row.max_tokens.is_null()) CHECK(body["max_tokens"] == row.max_tokens);
    CHECK(body.contains("ignore_eos") == row.ignore_eos);
    CHECK_FALSE(body.contains("tools"));
    CHECK_FALSE(body.contains("tool_choice"));
  }
}

TEST_CASE("Runner chat body declares tools and asks per --ask-mode", "[Runner]") {
  Json messages = Json::array({{{"role", "user"}, {"content", "a<|channel|>b"}}});
  Json tools = Json::array({{{"type", "function"}, {"function", {{"name", "f"}}}}});
  BodyOptions options;
  options.model = "gpt-oss";
  Json quiet = Json::parse(BuildChatBody(options, messages, tools, 9));
  CHECK(quiet["tools"] == tools);
  CHECK(quiet["tool_choice"] == "none");
  CHECK(quiet["messages"][0]["content"] == "a<|channel|>b");  // verbatim unless sanitizing
  options.ask_mode = true;
  options.sanitize_harmony_tokens = true;
  Json asked = Json::parse(BuildChatBody(options, messages, tools, 9));
  CHECK(asked["tool_choice"] == "auto");
  CHECK(asked["messages"][0]["content"] == "ab");
  // /tokenize sees exactly the prompt the chat body sends.
  Json tokenize = Json::parse(BuildTokenizeBody(options, messages, tools));
  CHECK(tokenize == Json{{"model", "gpt-oss"}, {"messages", asked["messages"]}, {"tools", tools}});
}

TEST_CASE("Runner tokenize body and warmup prefixes", "[Runner]") {
  Json messages = Json::array({{{"role", "user"}, {"content", "x"}}});
  BodyOptions options;
  options.model = "m";
  CHECK(Json::parse(BuildTokenizeBody(options, messages, Json::array())) ==
        Json{{"model", "m"}, {"messages", messages}});
  std::string first = WarmupMessages(0, 7)[0]["content"];
  std::string second = WarmupMessages(1, 7)[0]["content"];
  CHECK(first != second);
  CHECK(first.substr(0, 20) != second.substr(0, 20));
}

}  // namespace
}  // namespace kvbench::runner
