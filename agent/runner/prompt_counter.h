#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/http/async_http_client.h"
#include "common/sync/stop_source.h"

namespace kvbench::runner {

// How many prompts PromptCounter asks /tokenize about at once.
inline constexpr int kPromptCountConcurrency = 8;

// A prompt as the served model's tokenizer sees it (chat template applied).
struct PromptCount {
  int64_t tokens = 0;
  std::vector<uint64_t> chunk_keys;  // agent::results::PromptChunkKeys of its token ids
};

// Counts every replayed prompt through the server's POST /tokenize before the run's clock
// starts, so the ISL depth limit and the reuse opportunity cost nothing while it runs
// (DESIGN.md "Replay semantics": ISL is counted by the model's own tokenizer, via /tokenize).
// Up to kPromptCountConcurrency requests in flight; blocks until all are answered or one fails.
class PromptCounter {
 public:
  // `client` and `stop` must outlive the counter.
  PromptCounter(AsyncHttpClient* client, std::string base_url, absl::Duration timeout,
                StopSource* stop);

  // One count per body, in order. UNAVAILABLE naming the first body that /tokenize refused or
  // answered without a `tokens` list (the server's status and message included); CANCELLED when
  // `stop` was raised.
  absl::StatusOr<std::vector<PromptCount>> Count(const std::vector<std::string>& bodies);

 private:
  AsyncHttpClient* client_;
  std::string url_;
  absl::Duration timeout_;
  StopSource* stop_;
};

}  // namespace kvbench::runner
