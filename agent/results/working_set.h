#pragma once

#include <cstdint>
#include <vector>

#include "agent/results/counted_prompts.h"
#include "agent/runner/request_record.h"

namespace kvbench::agent::results {

// The replay's KV working set in tokens (ScenarioResult.peak_concurrent_tokens), from its
// per-request records (any order). Pure.
// - A user's context at time t is prompt_tokens + output_tokens of its most recently sent round
//   (the latest sent_s <= t; a conversation's context grows round by round and its prefix stays
//   cached between rounds).
// - A user is live from the send of its first request to the end of its last (its latest end_s,
//   never before its last send).
// - The working set at t is the sum of the live users' contexts; the result is its peak over
//   time. Changes at one instant are applied together before the peak is taken, so a user that
//   ends as another starts (a slot handed on) is not counted together with it.
// Records with no token counts (prompt_tokens and output_tokens both 0) are skipped; 0 when no
// record is left.
int64_t PeakWorkingSetTokens(const std::vector<runner::RequestRecord>& records);

// The same with the prompts as kv-runner counted them (prompts.jsonl): a user's context is its
// current round's prompt cut into kReuseChunkTokens-token chunks (chunk_keys) plus the partial
// tail (tokens - 256 x keys) plus the round's output tokens, and the working set at t counts
// each distinct chunk key once over the live users — a prefix shared by several users (a system
// prompt, a common tool list) is held once, as a prefix cache holds it. A record without a
// counted prompt (user_id, round) counts its prompt_tokens + output_tokens as its own.
// With no prompts this is PeakWorkingSetTokens(records).
int64_t PeakWorkingSetTokens(const std::vector<runner::RequestRecord>& records,
                             const std::vector<CountedPrompt>& prompts);

}  // namespace kvbench::agent::results
