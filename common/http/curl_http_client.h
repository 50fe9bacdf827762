#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http/http_client.h"

namespace kvbench {

// The production HttpClient, over libcurl easy handles (HTTP/1.1).
//
// Keep-alive: libcurl keeps its connection cache inside each easy handle, so finished handles go
// back to a small pool and the next call on any thread picks one up with its open connections.
// A call holds one handle for its whole duration; calls from several threads run in parallel on
// different handles.
//
// Connection policy (http/https only, HTTP/1.1, redirects not followed, environment proxies
// ignored, keep-alive probes, receive buffer): common/http/curl_policy.h.
//
// Failed Statuses, beyond those documented on HttpClient:
//   INVALID_ARGUMENT  method other than GET/POST, a GET with a body, a header with CR/LF, a
//                     negative timeout, a malformed URL or a scheme other than http/https.
//   UNAVAILABLE       also a body cut short (connection closed mid-body, chunked or not).
// Messages name the method, the URL, curl's own explanation and the curl error number.
class CurlHttpClient : public HttpClient {
 public:
  // Idle easy handles kept for reuse; a burst of more concurrent calls creates more handles and
  // closes the surplus (and its connections) when they finish.
  static constexpr size_t kMaxIdleHandles = 16;

  // Initializes libcurl once per process (thread-safe); INTERNAL if that fails.
  static absl::StatusOr<std::unique_ptr<CurlHttpClient>> Create();

  // No call may be in flight.
  ~CurlHttpClient() override;
  CurlHttpClient(const CurlHttpClient&) = delete;
  CurlHttpClient& operator=(const CurlHttpClient&) = delete;

  absl::StatusOr<HttpResponse> Send(const HttpRequest& request) override;
  absl::StatusOr<HttpResponse> SendStreaming(const HttpRequest& request,
                                             const HttpChunkCallback& on_chunk) override;

 private:
  CurlHttpClient() = default;

  // Buffers the body into the response when `on_chunk` is null.
  absl::StatusOr<HttpResponse> Perform(const HttpRequest& request,
                                       const HttpChunkCallback* on_chunk);
  // An idle handle, or a new one (null if libcurl cannot make one). Reset to default options.
  void* AcquireHandle();
  // Pools the handle if `reusable` and the pool has room, else closes it and its connections.
  void ReleaseHandle(void* handle, bool reusable);

  std::mutex mu_;
  // CURL* (a void* in curl.h), kept out of this header.
  std::vector<void*> idle_handles_;  // guarded by mu_
  size_t handles_in_use_ = 0;        // guarded by mu_
};

}  // namespace kvbench
