#include "agent/runner/sse_parser.h"

#include <catch2/catch.hpp>
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
