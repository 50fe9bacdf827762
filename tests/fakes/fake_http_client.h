#pragma once

#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http/http_client.h"

namespace kvbench::testing {

// An HttpClient that answers from responses the test sets up, by exact URL (query included),
// and records every request. Thread-safe.
//
// Send answers, in order of preference:
//   1. the oldest response enqueued for the URL with EnqueueResponse (each is used once);
//   2. the URL's default from SetDefaultResponse (reused on every call);
//   3. UNAVAILABLE "FakeHttpClient: nothing set up for <url>": what a real client gets from an
//      address where nothing listens, so code under test takes its "peer down" path.
// Like the real client, a method other than GET/POST is INVALID_ARGUMENT (still recorded).
//
// SendStreaming picks its response the same way, except that a URL with stream chunks and no
// response answers 200. It hands the URL's chunks (SetStreamChunks) to the callback one by one
// or, with no chunks set, a successful response's body as one chunk; then it returns the response
// with an empty body. An error response is returned after the chunks (a stream cut short), or
// at once when no chunks were set. A callback returning false stops delivery: CANCELLED.
class FakeHttpClient : public HttpClient {
 public:
  // A response with this status and body, for the setup calls.
  static HttpResponse MakeResponse(int status, std::string body, HttpHeaders headers = {});

  void EnqueueResponse(const std::string& url, absl::StatusOr<HttpResponse> response);
  void SetDefaultResponse(const std::string& url, absl::StatusOr<HttpResponse> response);
  void SetStreamChunks(const std::string& url, std::vector<std::string> chunks);

  // Every request received so far, oldest first.
  std::vector<HttpRequest> requests() const;

  absl::StatusOr<HttpResponse> Send(const HttpRequest& request) override;
  absl::StatusOr<HttpResponse> SendStreaming(const HttpRequest& request,
                                             const HttpChunkCallback& on_chunk) override;

 private:
  // Records `request`; INVALID_ARGUMENT for a method the real client refuses.
  absl::Status Record(const HttpRequest& request);
  // Queue, then default, then (streaming with chunks) 200, then UNAVAILABLE.
  absl::StatusOr<HttpResponse> NextResponse(const std::string& url, bool streaming);

  mutable std::mutex mu_;
  std::vector<HttpRequest> requests_;                                         // guarded by mu_
  std::map<std::string, std::deque<absl::StatusOr<HttpResponse>>> queued_;  // guarded by mu_
  std::map<std::string, absl::StatusOr<HttpResponse>> defaults_;            // guarded by mu_
  std::map<std::string, std::vector<std::string>> stream_chunks_;           // guarded by mu_
};

}  // namespace kvbench::testing
