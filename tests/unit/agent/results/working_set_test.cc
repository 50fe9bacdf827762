#include "agent/results/working_set.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/unit/agent/results/replay_fixture.h"

namespace kvbench::agent::results {
namespace {

using testing::Failed;
using testing::Ok;

// A successful round sent at `sent` and ending at `end`.
runner::RequestRecord Round(const std::string& user, int round, double sent, double end, int prompt,
                            int output) {
  return Ok(user, round, sent, sent, sent, end, prompt, output);
}

TEST_CASE("Working set peak over a table of replays", "[results][working_set]") {
  struct Row {
    const char* name;
    std::vector<runner::RequestRecord> records;
    int64_t peak;
  };
  const Row rows[] = {
      {"empty", {}, 0},
      // One user: its context grows round by round; the peak is its last round.
      {"one user",
       {Round("a", 1, 0, 1, 100, 10), Round("a", 2, 1, 2, 210, 10), Round("a", 3, 2, 3, 320, 5)},
       325},
      // Records in any order give the same answer.
      {"one user, records out of order",
       {Round("a", 3, 2, 3, 320, 5), Round("a", 1, 0, 1, 100, 10), Round("a", 2, 1, 2, 210, 10)},
       325},
      // Two users live together: a's round 2 (220) and b's round 2 (330) overlap on [3, 4).
      {"overlapping users",
       {Round("a", 1, 0, 2, 100, 10), Round("a", 2, 2, 4, 200, 20), Round("b", 1, 0.5, 3, 300, 10),
        Round("b", 2, 3, 5, 320, 10)},
       550},
      // a ends at 2 before b starts at 3: never live together.
      {"users ending before others start",
       {Round("a", 1, 0, 1, 100, 10), Round("a", 2, 1, 2, 200, 10), Round("b", 1, 3, 4, 500, 10)},
       510},
      // a ends at the instant b starts (its slot handed on): not counted together.
      {"slot handed on at one instant",
       {Round("a", 1, 0, 2, 100, 10), Round("b", 1, 2, 3, 150, 10)},
       160},
      // a stays live between rounds (its prefix stays cached) while b comes and goes.
      {"user live between rounds",
       {Round("a", 1, 0, 1, 100, 10), Round("a", 2, 5, 6, 200, 10), Round("b", 1, 2, 3, 400, 10)},
       520},
      // c (400) ends at 3, before a (300 from 4) and b (250 from 3.5) meet: 550, not 950.
      {"users ending lower the sum",
       {Round("c", 1, 0, 3, 400, 0), Round("a", 1, 1, 4, 100, 0), Round("a", 2, 4, 8, 300, 0),
        Round("b", 1, 3.5, 9, 250, 0)},
       550},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    CHECK(PeakWorkingSetTokens(row.records) == row.peak);
  }
}

TEST_CASE("Working set skips records without token counts and keeps failures that have them",
          "[results][working_set]") {
  runner::RequestRecord no_tokens = Failed("x", 1, 0, 0, 5, 0);
  CHECK(PeakWorkingSetTokens({no_tokens}) == 0);
  // The failed round 2 was sent with its prompt: it holds KV until it ends.
  CHECK(PeakWorkingSetTokens(
            {Round("a", 1, 0, 1, 100, 10), Failed("a", 2, 1, 1, 3, 300), no_tokens}) == 300);
}

// A counted prompt of `user`'s `round`: chunk keys `keys` (256 tokens each) plus `tail` tokens.
CountedPrompt Prompt(const std::string& user, int round, std::vector<uint64_t> keys, int tail) {
  return {user, round, static_cast<int64_t>(keys.size()) * 256 + tail, std::move(keys)};
}

TEST_CASE("Working set counts a shared prefix once when prompts were counted",
          "[results][working_set]") {
  // Two users share a 1,024-token system prompt (chunk keys 1-4), then their own chunks.
  struct Row {
    const char* name;
    std::vector<runner::RequestRecord> records;
    std::vector<CountedPrompt> prompts;
    int64_t peak;
  };
  const std::vector<uint64_t> shared = {1, 2, 3, 4};
  auto with = [&](std::vector<uint64_t> own) {
    std::vector<uint64_t> keys = shared;
    keys.insert(keys.end(), own.begin(), own.end());
    return keys;
  };
  const std::vector<Row> rows = {
      // Both live on [1, 2): 4 shared + 1 own each = 6 chunks, tails 10 + 20, outputs 5 + 5.
      {"two users sharing a system prompt",
       {Round("a", 1, 0, 2, 1290, 5), Round("b", 1, 1, 3, 1300, 5)},
       {Prompt("a", 1, with({10}), 10), Prompt("b", 1, with({20}), 20)},
       6 * 256 + 10 + 20 + 5 + 5},
      // Not live together: the peak is one user's context.
      {"one after the other",
       {Round("a", 1, 0, 1, 1290, 5), Round("b", 1, 1, 2, 1300, 5)},
       {Prompt("a", 1, with({10}), 10), Prompt("b", 1, with({20}), 20)},
       5 * 256 + 20 + 5},
      // A user's round 2 extends its round 1: its context is round 2's prompt, not the sum.
      {"one user, two rounds",
       {Round("a", 1, 0, 1, 1290, 5), Round("a", 2, 1, 2, 1600, 7)},
       {Prompt("a", 1, with({10}), 10), Prompt("a", 2, with({10, 11}), 64)},
       6 * 256 + 64 + 7},
      // A record with no counted prompt counts its own prompt_tokens + output_tokens.
      {"a record without a counted prompt",
       {Round("a", 1, 0, 2, 1290, 5), Round("c", 1, 1, 3, 700, 9)},
       {Prompt("a", 1, with({10}), 10)},
       5 * 256 + 10 + 5 + 700 + 9},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    CHECK(PeakWorkingSetTokens(row.records, row.prompts) == row.peak);
  }
  // The per-user sum counts the system prompt twice: what the shared count corrects.
  CHECK(PeakWorkingSetTokens(rows[0].records) == 1290 + 5 + 1300 + 5);
  CHECK(PeakWorkingSetTokens(rows[0].records, {}) == PeakWorkingSetTokens(rows[0].records));
}

TEST_CASE("Counted prompt lines round-trip, keys as 64-bit hex", "[results]") {
  const CountedPrompt prompt{"0003-01", 2, 600, {0xffffffffffffffffULL, 0x0123456789abcdefULL}};
  const std::string line = ToPromptLine(prompt);
  CHECK(line.find("\"ffffffffffffffff\"") != std::string::npos);
  absl::StatusOr<CountedPrompt> back = ParsePromptLine(line);
  REQUIRE(back.ok());
  CHECK(back->user_id == "0003-01");
  CHECK(back->round == 2);
  CHECK(back->tokens == 600);
  CHECK(back->chunk_keys == prompt.chunk_keys);
  CHECK_THAT(
      std::string(ParsePromptLine(R"({"user_id":"a","round":1,"tokens":"x","chunk_keys":[]})")
                      .status()
                      .message()),
      Catch::Contains("tokens"));
}

}  // namespace
}  // namespace kvbench::agent::results
