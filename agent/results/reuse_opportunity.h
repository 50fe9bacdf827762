#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kvbench::results {

// One request's prompt as the replay sent it.
struct PromptTokens {
  std::string user_id;
  std::vector<std::int32_t> token_ids;
};

// How much of a replay's prompt volume an ideal prefix cache could have reused.
struct ReuseOpportunity {
  std::optional<double> same_user_pct;  // null when there are no prompt tokens
  std::optional<double> any_user_pct;
};

// The size of a chunk, as LMCache and vLLM prefix caching hash prompts.
inline constexpr int kReuseChunkTokens = 256;

// Pure. `prompts` in send order. Each prompt is cut into full kReuseChunkTokens-token chunks (a
// trailing partial chunk is never reusable); chunk i is identified by a hash chain over the whole
// prefix tokens[0, (i + 1) * 256). A chunk counts as reusable if the same prefix occurred in an
// earlier request (of the same user, resp. of any user). The result is the reusable chunks' tokens
// as a % of all prompt tokens (partial chunks included in the denominator).
ReuseOpportunity ComputeReuseOpportunity(const std::vector<PromptTokens>& prompts);

}  // namespace kvbench::results
