#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kvbench::agent::results {

// The size of a chunk, as LMCache and vLLM prefix caching hash prompts.
inline constexpr int kReuseChunkTokens = 256;

// Pure. The prompt cut into full kReuseChunkTokens-token chunks (a trailing partial chunk is never
// reusable); chunk i's key is a hash chain over the whole prefix tokens[0, (i + 1) * 256), so two
// prompts share chunk i's key exactly when they share that prefix.
std::vector<std::uint64_t> PromptChunkKeys(const std::vector<std::int32_t>& token_ids);

// One request's prompt as the replay sent it, kept as its length and chunk keys (a 100k-token
// prompt costs 400 keys, not 100k ids).
struct PromptTokens {
  PromptTokens() = default;
  PromptTokens(std::string user, const std::vector<std::int32_t>& token_ids)
      : user_id(std::move(user)),
        token_count(static_cast<std::int64_t>(token_ids.size())),
        chunk_keys(PromptChunkKeys(token_ids)) {}

  std::string user_id;
  std::int64_t token_count = 0;
  std::vector<std::uint64_t> chunk_keys;
};

// How much of a replay's prompt volume an ideal prefix cache could have reused.
struct ReuseOpportunity {
  std::optional<double> same_user_pct;  // null when there are no prompt tokens
  std::optional<double> any_user_pct;
};

// Pure. `prompts` in send order. A chunk counts as reusable if the same prefix occurred in an
// earlier request (of the same user, resp. of any user). The result is the reusable chunks' tokens
// as a % of all prompt tokens (partial chunks included in the denominator).
ReuseOpportunity ComputeReuseOpportunity(const std::vector<PromptTokens>& prompts);

}  // namespace kvbench::agent::results
