#pragma once

// How much of the reuse a sticky GPU tier could get it actually got (whether
// offload was exercised, told from evidence). Pure.

#include <cstdint>
#include <optional>
#include <vector>

#include "agent/results/counted_prompts.h"
#include "agent/runner/request_record.h"

namespace kvbench::agent::results {

struct SameUserReuse {
  // Sum over successful requests of the prompt's same-user reusable tokens: its leading chunk
  // keys (reuse_opportunity.h: each key hashes the whole prefix up to its chunk's end) found
  // among the chunk keys of the same user's earlier rounds, x kReuseChunkTokens.
  int64_t reusable_tokens = 0;
  // Sum over the same requests of min(cached_tokens, that request's reusable tokens); unset when
  // no successful request reported cached_tokens.
  std::optional<int64_t> cached_tokens;
};

// From the replay's records (any order) and the prompts as counted (prompts.jsonl). A user's
// rounds are sent in order, so its round k can reuse exactly what rounds 1..k-1 computed on the
// replica it sticks to: with nothing evicted, vLLM serves at least those whole chunks from its
// prefix cache (its 16-token blocks cover them), and cached_tokens >= reusable. A record without
// a counted prompt is skipped. Unset when no prompt was counted.
std::optional<SameUserReuse> ComputeSameUserReuse(const std::vector<runner::RequestRecord>& records,
                                                  const std::vector<CountedPrompt>& prompts);

}  // namespace kvbench::agent::results
