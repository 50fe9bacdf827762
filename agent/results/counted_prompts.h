#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench::agent::results {

// One prompt as kv-runner counted it through /tokenize before the clock started: one line of
// prompts.jsonl, {"user_id", "round" (1-based), "tokens", "chunk_keys": ["<16 hex digits>", ...]}
// (chunk keys as reuse_opportunity.h's PromptChunkKeys; hex strings, so any JSON reader keeps all
// 64 bits).
struct CountedPrompt {
  std::string user_id;
  int round = 0;
  int64_t tokens = 0;
  std::vector<uint64_t> chunk_keys;
};

// One compact JSON object, no trailing newline.
std::string ToPromptLine(const CountedPrompt& prompt);
// INVALID_ARGUMENT naming the key that is missing or mistyped.
absl::StatusOr<CountedPrompt> ParsePromptLine(absl::string_view line);

}  // namespace kvbench::agent::results
