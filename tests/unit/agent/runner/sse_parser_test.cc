#include "agent/runner/sse_parser.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agent/runner/stream_accumulator.h"

namespace kvbench::runner {
namespace {

std::vector<std::string> FeedAll(const std::vector<std::string>& chunks) {
  SseParser parser;
  std::vector<std::string> events;
  for (const std::string& chunk : chunks) parser.Feed(chunk, &events);
  return events;
}

TEST_CASE("SseParser frames events whatever the chunk boundaries", "[Sse]") {
  struct Row {
    const char* name;
    std::vector<std::string> chunks;
    std::vector<std::string> events;
  };
  std::vector<Row> rows = {
      {"one event one chunk", {"data: {\"a\":1}\n\n"}, {"{\"a\":1}"}},
      {"several events per chunk",
       {"data: x\n\ndata: y\n\ndata: [DONE]\n\n"},
       {"x", "y", "[DONE]"}},
      {"split inside the prefix", {"da", "ta: x\n", "\n"}, {"x"}},
      {"split between the two newlines", {"data: x\n", "\ndata: y\n", "\n"}, {"x", "y"}},
      {"CRLF line ends split at CR", {"data: x\r", "\n\r", "\n"}, {"x"}},
      {"no space after colon", {"data:x\n\n"}, {"x"}},
      {"multi-line data joined", {"data: a\ndata: b\n\n"}, {"a\nb"}},
      {"comments and other fields ignored", {": ping\n\nevent: m\nid: 3\ndata: z\n\n"}, {"z"}},
      {"unterminated event not emitted", {"data: x\n\ndata: partial"}, {"x"}},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    CHECK(FeedAll(row.chunks) == row.events);
  }
}

TEST_CASE("SseParser byte-at-a-time equals one chunk", "[Sse]") {
  std::string stream = "data: {\"x\":1}\r\n\r\n: c\n\ndata: [DONE]\n\n";
  std::vector<std::string> bytes;
  for (char c : stream) bytes.emplace_back(1, c);
  CHECK(FeedAll(bytes) == FeedAll({stream}));
  CHECK(FeedAll(bytes).size() == 2);
}

TEST_CASE("SseParser Pending reports a cut event", "[Sse]") {
  SseParser parser;
  std::vector<std::string> events;
  parser.Feed("data: x\n\n", &events);
  CHECK_FALSE(parser.Pending());
  parser.Feed("data: y", &events);
  CHECK(parser.Pending());
}

TEST_CASE("Sse StreamAccumulator classifies payloads", "[Sse]") {
  using Kind = StreamAccumulator::Kind;
  struct Row {
    const char* payload;
    Kind kind;
  };
  std::vector<Row> rows = {
      {R"({"choices":[{"delta":{"role":"assistant"}}]})", Kind::kOther},
      {R"({"choices":[{"delta":{"content":""}}]})", Kind::kOther},
      {R"({"choices":[{"delta":{"content":"hi"}}]})", Kind::kToken},
      {R"({"choices":[{"delta":{"reasoning":"hm"}}]})", Kind::kToken},
      {R"({"choices":[{"delta":{"reasoning_content":"hm"}}]})", Kind::kToken},
      {R"({"choices":[{"delta":{"tool_calls":[{"index":0}]}}]})", Kind::kToken},
      {R"({"choices":[{"text":"t"}]})", Kind::kToken},
      {R"({"choices":[],"usage":{"prompt_tokens":3}})", Kind::kOther},
      {"[DONE]", Kind::kDone},
      {R"({"error":{"message":"boom"}})", Kind::kError},
      {R"({"object":"error","message":"boom"})", Kind::kError},
      {"not json", Kind::kError},
  };
  for (const Row& row : rows) {
    INFO(row.payload);
    StreamAccumulator stream;
    CHECK(stream.Add(row.payload) == row.kind);
  }
}

TEST_CASE("Sse StreamAccumulator reads usage, done and errors", "[Sse]") {
  StreamAccumulator stream;
  stream.Add(R"({"choices":[{"delta":{"content":"a"}}]})");
  stream.Add(R"({"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,)"
             R"("prompt_tokens_details":{"cached_tokens":4}}})");
  CHECK_FALSE(stream.done());
  stream.Add("[DONE]");
  CHECK(stream.done());
  CHECK(stream.saw_token());
  CHECK(stream.prompt_tokens() == 10);
  CHECK(stream.output_tokens() == 2);
  CHECK(stream.cached_tokens() == 4);
  CHECK_FALSE(stream.error());

  StreamAccumulator failed;
  failed.Add(R"({"error":{"message":"engine died","code":500}})");
  REQUIRE(failed.error());
  CHECK(*failed.error() == "stream_error: engine died");
  CHECK(failed.Add("[DONE]") == StreamAccumulator::Kind::kOther);  // nothing after an error
  CHECK_FALSE(failed.done());

  StreamAccumulator no_details;
  no_details.Add(R"({"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1}})");
  CHECK_FALSE(no_details.cached_tokens());
}

}  // namespace
}  // namespace kvbench::runner

namespace kvbench::runner {
namespace {

TEST_CASE("StreamAccumulator reads usage and errors after the first token without parsing tokens",
          "[Runner]") {
  const std::string token = R"({"choices":[{"index":0,"delta":{"content":"usage"}}]})";
  StreamAccumulator stream;
  CHECK(stream.Add(token) == StreamAccumulator::Kind::kToken);
  // A content text that is the word usage/error is still a plain token.
  CHECK(stream.Add(R"({"choices":[{"index":0,"delta":{"content":"\"error\" usage"}}]})") ==
        StreamAccumulator::Kind::kOther);
  CHECK_FALSE(stream.error());
  stream.Add(R"({"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,)"
             R"("prompt_tokens_details":{"cached_tokens":2}}})");
  CHECK(stream.prompt_tokens() == 7);
  CHECK(stream.output_tokens() == 3);
  CHECK(stream.cached_tokens() == 2);
  CHECK(stream.Add("[DONE]") == StreamAccumulator::Kind::kDone);

  StreamAccumulator failing;
  failing.Add(token);
  CHECK(failing.Add(R"({"error":{"message":"engine died"}})") == StreamAccumulator::Kind::kError);
  CHECK(failing.error() == std::optional<std::string>("stream_error: engine died"));

  StreamAccumulator garbled;
  garbled.Add(token);
  CHECK(garbled.Add("not json") == StreamAccumulator::Kind::kError);
  CHECK(garbled.error() == std::optional<std::string>("bad_stream_event"));
}

}  // namespace
}  // namespace kvbench::runner

namespace kvbench::runner {
namespace {

// What StreamAccumulator read from one payload when it parsed a whole nlohmann::json document
// (before it scanned payloads with SAX): the reference its answers must equal.
struct Reading {
  StreamAccumulator::Kind kind;
  std::optional<std::string> error;
  std::optional<int> prompt_tokens;
  std::optional<int> output_tokens;
  std::optional<int> cached_tokens;
};

Reading DocumentReading(const std::string& payload) {
  using Json = nlohmann::json;
  using Kind = StreamAccumulator::Kind;
  Reading reading{Kind::kOther, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  const Json chunk = Json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!chunk.is_object()) return {Kind::kError, "bad_stream_event", {}, {}, {}};
  const auto text = [](const Json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() && !it->get<std::string>().empty();
  };
  const auto integer = [](const Json& object, const char* key) -> std::optional<int> {
    auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<int>();
  };
  const bool error_object = chunk.contains("object") && chunk["object"].is_string() &&
                            chunk["object"].get<std::string>() == "error";
  if (chunk.contains("error") || error_object) {
    const Json& error = chunk.contains("error") ? chunk["error"] : chunk;
    const bool message =
        error.is_object() && error.contains("message") && error["message"].is_string();
    return {Kind::kError,
            message ? "stream_error: " + error["message"].get<std::string>() : "stream_error",
            {},
            {},
            {}};
  }
  if (auto usage = chunk.find("usage"); usage != chunk.end() && usage->is_object()) {
    reading.prompt_tokens = integer(*usage, "prompt_tokens");
    reading.output_tokens = integer(*usage, "completion_tokens");
    if (auto details = usage->find("prompt_tokens_details");
        details != usage->end() && details->is_object()) {
      reading.cached_tokens = integer(*details, "cached_tokens");
    }
  }
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array()) return reading;
  for (const Json& choice : *choices) {
    if (!choice.is_object()) continue;
    if (text(choice, "text")) reading.kind = Kind::kToken;
    auto delta = choice.find("delta");
    if (delta == choice.end() || !delta->is_object()) continue;
    if (text(*delta, "content") || text(*delta, "reasoning") || text(*delta, "reasoning_content")) {
      reading.kind = Kind::kToken;
    }
    auto calls = delta->find("tool_calls");
    if (calls != delta->end() && calls->is_array() && !calls->empty()) reading.kind = Kind::kToken;
  }
  return reading;
}

TEST_CASE("StreamAccumulator reads a payload as a parsed document would", "[Sse]") {
  const std::vector<std::string> payloads = {
      R"({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,)"
      R"("delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})",
      R"({"id":"c","choices":[{"index":0,"delta":{"content":"tok "},"finish_reason":null}]})",
      R"({"choices":[{"index":0,"delta":{},"finish_reason":"length"}]})",
      R"({"choices":[],"usage":{"prompt_tokens":32,"completion_tokens":16,"total_tokens":48}})",
      R"({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,)"
      R"("prompt_tokens_details":{"cached_tokens":1}}})",
      R"({"usage":{"prompt_tokens":3.5,"completion_tokens":"2","prompt_tokens_details":null}})",
      R"({"usage":[1,2],"choices":{"delta":{"content":"x"}}})",
      R"({"usage":{"nested":{"prompt_tokens":9}},"prompt_tokens":8})",
      R"({"choices":[1,"a",null,{"delta":"content"},{"delta":{"content":7}}]})",
      R"({"choices":[{"text":""},{"text":"t"}]})",
      R"({"choices":[{"delta":{"tool_calls":[]}}]})",
      R"({"choices":[{"delta":{"tool_calls":[null]}}]})",
      R"({"choices":[{"delta":{"tool_calls":{"index":0}}}]})",
      R"({"choices":[{"delta":{"x":{"content":"deep"}}}]})",
      R"({"choices":[[{"delta":{"content":"in a nested array"}}]]})",
      R"({"error":{"message":"boom","code":500}})",
      R"({"error":{"detail":{"message":"deep"}}})",
      R"({"error":"plain"})",
      R"({"error":null})",
      R"({"object":"error","message":"bad request"})",
      R"({"object":"error","message":{"text":"x"}})",
      R"({"object":"chat.completion.chunk","message":"not an error"})",
      R"({"message":"boom","choices":[{"delta":{"content":"x"}}]})",
      R"(["not","an","object"])",
      "42",
      R"("string")",
      "{",
      R"({"a":1} trailing)",
      "",
      // Escapes, UTF-8 and odd numbers: the scanner leaves these to nlohmann's parser.
      R"({"choices":[{"delta":{"content":"\u00e9"}}]})",
      R"({"choices":[{"delta":{"cont\u0065nt":"x"}}]})",
      R"({"choices":[{"delta":{"content":"\n"}}]})",
      R"({"error":{"message":"caf\u00e9 \"quoted\""}})",
      R"({"object":"err\u006fr","message":"escaped"})",
      "{\"choices\":[{\"delta\":{\"content\":\"caf\xc3\xa9\"}}]}",
      "{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}",
      "{\"choices\":[{\"delta\":{\"content\":\"tab\there\"}}]}",
      "\xef\xbb\xbf{\"usage\":{\"prompt_tokens\":5}}",
      R"({"usage":{"prompt_tokens":99999999999999999999,"completion_tokens":-5}})",
      R"({"usage":{"prompt_tokens":1234567890123456789,"completion_tokens":-0}})",
      R"({"usage":{"prompt_tokens":123456789012345678,"completion_tokens":1e2}})",
      R"({"usage":{"prompt_tokens":-9223372036854775808}})",
      " \t\r\n{ \"usage\" : { \"prompt_tokens\" : 4 } } \n",
      R"({"a":01})",
      R"({"a":1.})",
      R"({"a":.5})",
      R"({"a":1e})",
      R"({"a":-})",
      R"({"a":tru})",
      R"({"a":nul})",
      R"({"a":[1,]})",
      R"({"a":1,})",
      R"({"a" 1})",
      R"({'a':1})",
      R"({"a":"unterminated})",
      std::string(40, '[') + std::string(40, ']'),
      "{\"a\":" + std::string(40, '[') + std::string(40, ']') + "}",
  };
  for (const std::string& payload : payloads) {
    INFO(payload);
    const Reading expected = DocumentReading(payload);
    StreamAccumulator stream;
    CHECK(stream.Add(payload) == expected.kind);
    CHECK(stream.error() == expected.error);
    CHECK(stream.prompt_tokens() == expected.prompt_tokens);
    CHECK(stream.output_tokens() == expected.output_tokens);
    CHECK(stream.cached_tokens() == expected.cached_tokens);
  }
}

}  // namespace
}  // namespace kvbench::runner
