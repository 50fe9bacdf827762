#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "agent/sim/engine/chat_template.h"

namespace kvbench::sim {
namespace {

using nlohmann::json;

TEST_CASE("ChatTemplate renders messages through the fixed template", "[sim_engine]") {
  struct Case {
    const char* name;
    json messages;
    bool add_generation_prompt;
    std::string expected;
  };
  const Case cases[] = {
      {"empty list", json::array(), false, ""},
      {"generation prompt only", json::array(), true, "<|start|>assistant\n"},
      {"system and user",
       json::parse(R"([{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}])"),
       true, "<|start|>system\nBe brief.<|end|>\n<|start|>user\nHi<|end|>\n<|start|>assistant\n"},
      {"null content", json::parse(R"([{"role":"assistant","content":null}])"), false,
       "<|start|>assistant\n<|end|>\n"},
      {"text parts", json::parse(R"([{"role":"user","content":[{"type":"text","text":"a"},
                                                  {"type":"text","text":"b"}]}])"),
       false, "<|start|>user\nab<|end|>\n"},
      {"name and tool_call_id",
       json::parse(R"([{"role":"tool","name":"lookup","tool_call_id":"call_1","content":"{}"}])"),
       false, "<|start|>tool name=lookup tool_call_id=call_1\n{}<|end|>\n"},
      {"tool calls as JSON", json::parse(R"([{"role":"assistant","content":null,"tool_calls":[
           {"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}])"),
       false,
       "<|start|>assistant\n[{\"function\":{\"arguments\":\"{}\",\"name\":\"f\"},\"id\":\"c1\","
       "\"type\":\"function\"}]<|end|>\n"},
      {"empty and null tool calls",
       json::parse(R"([{"role":"assistant","content":"x","tool_calls":[]},
                       {"role":"assistant","content":"y","tool_calls":null}])"),
       false, "<|start|>assistant\nx<|end|>\n<|start|>assistant\ny<|end|>\n"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const auto rendered = RenderChat(c.messages, c.add_generation_prompt);
    REQUIRE(rendered.ok());
    CHECK(*rendered == c.expected);
  }
}

TEST_CASE("ChatTemplate names the bad message and field", "[sim_engine]") {
  struct Case {
    json messages;
    std::string error;
  };
  const Case cases[] = {
      {json::object(), "messages must be an array"},
      {json::parse(R"([{"role":"user","content":"a"}, 3])"), "messages[1] must be an object"},
      {json::parse(R"([{"content":"a"}])"), "messages[0].role must be a string"},
      {json::parse(R"([{"role":"user"},{"role":7}])"), "messages[1].role must be a string"},
      {json::parse(R"([{"role":"user","content":5}])"),
       "messages[0].content must be a string, null or an array of text parts"},
      {json::parse(R"([{"role":"user","content":[{"type":"image_url"}]}])"),
       "messages[0].content[0].type must be \"text\""},
      {json::parse(R"([{"role":"user","content":[{"type":"text","text":1}]}])"),
       "messages[0].content[0].text must be a string"},
      {json::parse(R"([{"role":"user","content":["x"]}])"),
       "messages[0].content[0] must be an object"},
      {json::parse(R"([{"role":"tool","name":1}])"), "messages[0].name must be a string"},
      {json::parse(R"([{"role":"tool","tool_call_id":[]}])"),
       "messages[0].tool_call_id must be a string"},
      {json::parse(R"([{"role":"assistant","tool_calls":{}}])"),
       "messages[0].tool_calls must be an array or null"},
  };
  for (const Case& c : cases) {
    INFO(c.messages.dump());
    const auto rendered = RenderChat(c.messages, true);
    REQUIRE_FALSE(rendered.ok());
    CHECK(rendered.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(rendered.status().message()) == c.error);
  }
}

TEST_CASE("ChatTemplate prompt of round k is a text prefix of round k+1", "[sim_engine]") {
  const json round1 =
      json::parse(R"([{"role":"system","content":"S"},{"role":"user","content":"Q"}])");
  json round2 = round1;
  round2.push_back({{"role", "assistant"}, {"content", "A"}});
  round2.push_back({{"role", "user"}, {"content", "Q2"}});
  const auto a = RenderChat(round1, true);
  const auto b = RenderChat(round2, true);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(b->compare(0, a->size(), *a) == 0);
}

}  // namespace
}  // namespace kvbench::sim
