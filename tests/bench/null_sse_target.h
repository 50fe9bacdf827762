#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/http/http_server.h"

namespace kvbench::bench {

// An OpenAI-compatible target that costs nothing: POST (or GET, for wrk) /v1/chat/completions is
// answered at once from memory with a fixed vLLM-shaped SSE stream (role chunk, `content_chunks`
// content chunks, finish chunk, usage chunk, [DONE]). It stamps when it sends each request's first
// content chunk, on std::chrono::steady_clock (CLOCK_MONOTONIC on Linux, so comparable with other
// processes' steady_clock on the host), keyed by x-user-id and a 1-based per-user counter.
// GET /stamps returns the stamps as JSON lines {"user_id","n","first_byte_s"} (raw clock seconds).
class NullSseTarget {
 public:
  struct Options {
    int port = 0;
    int io_threads = 2;
    int content_chunks = 16;
  };

  explicit NullSseTarget(Options options);
  NullSseTarget(const NullSseTarget&) = delete;
  NullSseTarget& operator=(const NullSseTarget&) = delete;

  absl::Status Start();
  void Stop();
  int port() const { return server_->port(); }
  // Every stamp so far, one JSON object per line.
  std::string StampsJsonLines() const;

 private:
  struct Stamp {
    std::string user_id;
    int n = 0;
    double first_byte_s = 0;
  };

  void Answer(const HttpServerRequest& request, const std::shared_ptr<HttpResponder>& responder);

  Options options_;
  std::string role_chunk_;
  std::string content_chunk_;
  std::string tail_;  // finish chunk, usage chunk and [DONE]
  std::unique_ptr<HttpServer> server_;

  mutable std::mutex mu_;
  std::map<std::string, int> per_user_;  // guarded by mu_
  std::vector<Stamp> stamps_;            // guarded by mu_
};

}  // namespace kvbench::bench
