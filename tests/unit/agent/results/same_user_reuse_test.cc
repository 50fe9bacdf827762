#include "agent/results/same_user_reuse.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kvbench::agent::results {
namespace {

runner::RequestRecord Record(const std::string& user, int round, std::optional<int> cached) {
  runner::RequestRecord record;
  record.user_id = user;
  record.round = round;
  record.cached_tokens = cached;
  return record;
}

CountedPrompt Prompt(const std::string& user, int round, std::vector<uint64_t> keys) {
  return CountedPrompt{user, round, static_cast<int64_t>(keys.size()) * 256 + 100, std::move(keys)};
}

// Two users sharing a system prompt (chunk 1): only a user's own earlier rounds count.
const std::vector<CountedPrompt> kPrompts = {
    Prompt("a", 1, {1, 10}),
    Prompt("a", 2, {1, 10, 11, 12}),      // 2 chunks from round 1
    Prompt("a", 3, {1, 10, 11, 12, 13}),  // 4 chunks from rounds 1-2
    Prompt("b", 1, {1, 20}),              // chunk 1 is a's, not b's: 0
    Prompt("b", 2, {1, 20, 21}),          // 2
};

TEST_CASE("ComputeSameUserReuse: what each user's earlier rounds computed, and what was served",
          "[results]") {
  struct Row {
    const char* name;
    std::vector<runner::RequestRecord> records;
    int64_t reusable;
    std::optional<int64_t> cached;
  };
  const Row rows[] = {
      {"nothing evicted: every reusable token cached (more is capped)",
       {Record("a", 1, 256), Record("a", 2, 600), Record("a", 3, 1100), Record("b", 1, 256),
        Record("b", 2, 512)},
       (2 + 4 + 2) * 256,
       (2 + 4 + 2) * 256},
      {"a's round 3 evicted down to its system prompt",
       {Record("a", 2, 512), Record("a", 3, 256), Record("b", 2, 512)},
       (2 + 4 + 2) * 256,
       (2 + 1 + 2) * 256},
      {"no cached_tokens reported",
       {Record("a", 2, std::nullopt), Record("b", 2, std::nullopt)},
       (2 + 2) * 256,
       std::nullopt},
      {"a record without a counted prompt is skipped", {Record("c", 1, 0)}, 0, std::nullopt},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    const std::optional<SameUserReuse> reuse = ComputeSameUserReuse(row.records, kPrompts);
    REQUIRE(reuse.has_value());
    CHECK(reuse->reusable_tokens == row.reusable);
    CHECK(reuse->cached_tokens == row.cached);
  }
}

TEST_CASE("ComputeSameUserReuse skips failed requests and needs counted prompts", "[results]") {
  runner::RequestRecord failed = Record("a", 2, 0);
  failed.error = "http_status";
  const std::optional<SameUserReuse> reuse = ComputeSameUserReuse({failed}, kPrompts);
  REQUIRE(reuse.has_value());
  CHECK(reuse->reusable_tokens == 0);
  CHECK_FALSE(ComputeSameUserReuse({Record("a", 2, 512)}, {}).has_value());
}

}  // namespace
}  // namespace kvbench::agent::results
