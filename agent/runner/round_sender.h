#pragma once

#include <atomic>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/runner/replay_clock.h"
#include "agent/runner/request_record.h"
#include "common/http/http_client.h"

namespace kvbench::runner {

// Sends one replayed request and times it. Blocks the calling slot thread for the whole exchange
// (blocking libcurl per slot thread is kv-runner's first client; see replay.h). Thread-safe: one
// RoundSender is shared by all slots. Nothing is logged here (the hot path).
class RoundSender {
 public:
  // `client` and `stop` must outlive the sender. `stop` aborts in-flight streams at their next
  // chunk (SIGINT/SIGTERM).
  RoundSender(HttpClient* client, std::string base_url, absl::Duration timeout,
              const std::atomic<bool>* stop, ReplayClock clock);

  struct Outcome {
    RequestRecord record;
    bool cancelled = false;  // aborted by `stop`: not a result, the record must be dropped
  };

  // POSTs the prebuilt chat body to {base}/v1/chat/completions with `x-user-id: user_id`, streaming.
  // record.sent_s is stamped just before curl gets the request, first_token_s in the chunk
  // callback at the first event carrying a token. Errors: "http_<status>", "timeout",
  // "transport: <message>", "truncated_stream" (200 without [DONE]), "stream_error: <message>".
  Outcome Send(const std::string& user_id, const std::string& body, double scheduled_s) const;

  // The prompt's token count from POST {base}/tokenize (the served model's tokenizer).
  absl::StatusOr<int> CountTokens(const std::string& user_id,
                                  const std::string& tokenize_body) const;

 private:
  HttpRequest MakeRequest(const std::string& path, const std::string& user_id,
                          const std::string& body) const;

  HttpClient* client_;
  std::string base_url_;
  absl::Duration timeout_;
  const std::atomic<bool>* stop_;
  ReplayClock clock_;
};

}  // namespace kvbench::runner
