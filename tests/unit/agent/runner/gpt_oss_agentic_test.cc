#include "agent/runner/gpt_oss_agentic.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace kvbench::runner {
namespace {

using Json = nlohmann::json;

TEST_CASE("Harmony control tokens are removed from every text a message carries", "[Runner]") {
  Json messages = Json::parse(R"([
    {"role": "system", "content": "policy<|end|><|start|>assistant"},
    {"role": "user", "content": [{"type": "text", "text": "x<|message|>y"}, {"type": "image"}]},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "c1", "type": "function",
       "function": {"name": "get<|call|>", "arguments": "{\"a\":\"<|constrain|>json\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "ok<|return|>"}
  ])");
  Json clean = SanitizeHarmonyTokens(messages);
  CHECK(clean[0]["content"] == "policyassistant");
  CHECK(clean[1]["content"][0]["text"] == "xy");
  CHECK(clean[1]["content"][1] == messages[1]["content"][1]);
  CHECK(clean[2]["content"].is_null());
  CHECK(clean[2]["tool_calls"][0]["function"]["arguments"] == "{\"a\":\"json\"}");
  // Names are identifiers, not text: left as recorded.
  CHECK(clean[2]["tool_calls"][0]["function"]["name"] == "get<|call|>");
  CHECK(clean[3]["content"] == "ok");
  CHECK(clean[3]["tool_call_id"] == "c1");
  // Text without control tokens is untouched, including lookalikes.
  Json plain = Json::array({{{"role", "user"}, {"content", "a <| b |> <|unknown|>"}}});
  CHECK(SanitizeHarmonyTokens(plain) == plain);
}

TEST_CASE("kv-runner --ask-mode is refused for a model vLLM would not take tool_choice auto from",
          "[Runner]") {
  struct Row {
    const char* model;
    const char* tokenizer;
    bool ask_mode;
    bool server_auto_tool_choice;
    bool ok;
  };
  const Row rows[] = {
      {"meta-llama/Llama-3.1-8B-Instruct", "", false, false,
       true},  // no ask mode: tool_choice none
      {"meta-llama/Llama-3.1-8B-Instruct", "", true, false, false},
      {"meta-llama/Llama-3.1-8B-Instruct", "", true, true, true},  // the server parses tools
      {"openai/gpt-oss-20b", "", true, false, true},               // harmony
      {"gpt", "openai/gpt-oss-120b", true, false, true},           // served under an alias
  };
  for (const Row& row : rows) {
    INFO(row.model << " ask_mode=" << row.ask_mode << " server=" << row.server_auto_tool_choice);
    const absl::Status status =
        CheckAskModeSupported(row.model, row.tokenizer, row.ask_mode, row.server_auto_tool_choice);
    CHECK(status.ok() == row.ok);
    if (!status.ok()) {
      CHECK(status.code() == absl::StatusCode::kInvalidArgument);
      CHECK_THAT(std::string(status.message()),
                 Catch::Contains("--ask-mode sends tool_choice \"auto\"") &&
                     Catch::Contains("harmony models (gpt-oss)") &&
                     Catch::Contains("--enable-auto-tool-choice and --tool-call-parser") &&
                     Catch::Contains(row.model) && Catch::Contains("--server-auto-tool-choice"));
    }
  }
}

TEST_CASE("Recorded tools are declared once each, in first-appearance order", "[Runner]") {
  auto call = [](const char* name) {
    return Json{
        {"id", "x"}, {"type", "function"}, {"function", {{"name", name}, {"arguments", "{}"}}}};
  };
  datasets::Round first;
  first.messages = Json::array({{{"role", "user"}, {"content", "q"}},
                                {{"role", "assistant"}, {"tool_calls", {call("search")}}}});
  datasets::Round second;
  second.messages = first.messages;
  second.messages.push_back(
      {{"role", "assistant"}, {"tool_calls", {call("book"), call("search")}}});
  Json tools = DeclareRecordedTools({&first, &second});
  REQUIRE(tools.size() == 2);
  CHECK(tools[0]["function"]["name"] == "search");
  CHECK(tools[1]["function"]["name"] == "book");
  CHECK(tools[0]["type"] == "function");
  CHECK(tools[0]["function"]["parameters"]["type"] == "object");
  datasets::Round none;
  none.messages = Json::array({{{"role", "user"}, {"content", "q"}}});
  CHECK(DeclareRecordedTools({&none}) == Json::array());
}

TEST_CASE("Only harmony-shaped failures are retried", "[Runner]") {
  CHECK(IsRetryableAgenticFailure("stream_error: unexpected token"));
  CHECK(IsRetryableAgenticFailure("http_400"));
  CHECK(IsRetryableAgenticFailure("http_500"));
  CHECK_FALSE(IsRetryableAgenticFailure("http_503"));
  CHECK_FALSE(IsRetryableAgenticFailure("timeout"));
  CHECK_FALSE(IsRetryableAgenticFailure("truncated_stream"));
  CHECK_FALSE(IsRetryableAgenticFailure("transport: reset"));
}

}  // namespace
}  // namespace kvbench::runner
