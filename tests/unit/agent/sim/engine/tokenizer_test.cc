#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "agent/sim/engine/chat_template.h"
#include "agent/sim/engine/tokenizer.h"
#include "tests/unit/agent/sim/engine/tau2_dataset.h"

namespace kvbench::sim {
namespace {

using testing::Tau2Sessions;

bool IsStrictPrefix(const std::vector<uint32_t>& prefix, const std::vector<uint32_t>& tokens) {
  return prefix.size() < tokens.size() && std::equal(prefix.begin(), prefix.end(), tokens.begin());
}

TEST_CASE("Tokenizer splits text into BPE-like pieces", "[sim_engine]") {
  struct Case {
    std::string text;
    size_t tokens;
  };
  const Case cases[] = {
      {"", 0},
      {"hello", 1},
      {"hello world", 2},           // "hello" " world"
      {"internationalization", 3},  // letters in runs of at most 8
      {"2024-05-15", 6},            // "202" "4" "-" "05" "-" "15": digits in runs of at most 3
      {"{\"a\": 1}", 6},            // "{\"" "a" "\":" " " "1" "}"
      {"a  b", 3},                  // "a" " " " b": a run of spaces leaves one to the word
      {"line\n\nnext", 3},          // "line" "\n\n" "next"
      {"<|start|>user\n", 5},       // "<|" "start" "|>" "user" "\n"
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(SimTokenizer::Encode(c.text).size() == c.tokens);
    CHECK(SimTokenizer::CountTokens(c.text) == c.tokens);
  }
}

TEST_CASE("Tokenizer ids are stable and in the vocabulary", "[sim_engine]") {
  const std::vector<uint32_t> a = SimTokenizer::Encode("The quick brown fox, 42 times.");
  CHECK(a == SimTokenizer::Encode("The quick brown fox, 42 times."));
  for (uint32_t id : a) CHECK(id < SimTokenizer::kVocabSize);
  // The same piece gets the same id wherever it appears.
  const std::vector<uint32_t> b = SimTokenizer::Encode(" fox fox");
  REQUIRE(b.size() == 2);
  CHECK(b[0] == b[1]);
  // Pinned across processes and builds: FNV-1a of "hello" mod 128256.
  CHECK(SimTokenizer::Encode("hello")[0] == 0xa430d84680aabd0bull % SimTokenizer::kVocabSize);
}

TEST_CASE("Tokenizer Decode gives short words", "[sim_engine]") {
  for (uint32_t token : {0u, 1u, 77u, 128255u}) {
    const std::string word = SimTokenizer::Decode(token);
    CHECK_FALSE(word.empty());
    CHECK(word.size() <= 8);
    CHECK(word == SimTokenizer::Decode(token));
  }
}

TEST_CASE("Tokenizer is prefix-stable over real tau2 conversations", "[sim_engine]") {
  const auto& sessions = Tau2Sessions();
  REQUIRE(sessions.size() == 8);
  int pairs = 0;
  for (const auto& session : sessions) {
    INFO(session.id);
    for (size_t row = 0; row + 1 < session.rows.size(); ++row) {
      const auto& shorter = session.rows[row].input;
      const auto& longer = session.rows[row + 1].input;
      // Message by message: messages[0..k] renders to a strict token prefix of messages[0..k+1].
      for (size_t k = shorter.size() > 3 ? shorter.size() - 3 : 1; k < longer.size(); ++k) {
        const nlohmann::json head(longer.begin(), longer.begin() + static_cast<long>(k));
        const nlohmann::json next(longer.begin(), longer.begin() + static_cast<long>(k) + 1);
        const auto a = RenderChat(head, false);
        const auto b = RenderChat(next, false);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        CHECK(IsStrictPrefix(SimTokenizer::Encode(*a), SimTokenizer::Encode(*b)));
      }
      // What the server renders (with the generation prompt) for consecutive recorded calls.
      const auto prompt = RenderChat(shorter, true);
      const auto next_prompt = RenderChat(longer, true);
      REQUIRE(prompt.ok());
      REQUIRE(next_prompt.ok());
      CHECK(IsStrictPrefix(SimTokenizer::Encode(*prompt), SimTokenizer::Encode(*next_prompt)));
      ++pairs;
    }
  }
  CHECK(pairs == 79);  // 87 rows in 8 sessions
}

TEST_CASE("Tokenizer counts about 0.2 to 0.35 tokens per character on tau2 text", "[sim_engine]") {
  size_t prompt_chars = 0;
  size_t prompt_tokens = 0;
  size_t prose_chars = 0;
  size_t prose_tokens = 0;
  for (const auto& session : Tau2Sessions()) {
    for (const auto& row : session.rows) {
      const auto prompt = RenderChat(row.input, true);
      REQUIRE(prompt.ok());
      prompt_chars += prompt->size();
      prompt_tokens += SimTokenizer::CountTokens(*prompt);
      for (const auto& message : row.input) {
        const auto content = message.find("content");
        if (message["role"] == "tool" || content == message.end() || !content->is_string()) {
          continue;
        }
        const std::string& text = content->get_ref<const std::string&>();
        prose_chars += text.size();
        prose_tokens += SimTokenizer::CountTokens(text);
      }
    }
  }
  const double prompt_ratio = static_cast<double>(prompt_tokens) / prompt_chars;
  const double prose_ratio = static_cast<double>(prose_tokens) / prose_chars;
  INFO("tokens per char: prompts " << prompt_ratio << " prose " << prose_ratio);
  CHECK(prompt_ratio > 0.2);
  CHECK(prompt_ratio < 0.35);
  CHECK(prose_ratio > 0.2);
  CHECK(prose_ratio < 0.35);
}

}  // namespace
}  // namespace kvbench::sim
