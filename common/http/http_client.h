#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace kvbench {

// Default limits of one HTTP exchange; callers that wait longer (an 18-hour replay request) say so.
inline constexpr absl::Duration kDefaultHttpTimeout = absl::Seconds(30);
inline constexpr absl::Duration kDefaultHttpConnectTimeout = absl::Seconds(5);

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";  // GET or POST
  std::string url;             // http://host:port/path?query
  HttpHeaders headers;
  std::string body;
  // Whole exchange, first byte to last. Zero = no limit.
  absl::Duration timeout = kDefaultHttpTimeout;
  absl::Duration connect_timeout = kDefaultHttpConnectTimeout;
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;  // names as received
  std::string body;     // empty for streaming requests (chunks went to the callback)

  // The first header named `name` (case-insensitive), if any.
  std::optional<std::string> Header(absl::string_view name) const;
};

// Receives response body bytes as they arrive; return false to abort the transfer (the call then
// returns CANCELLED). Chunk boundaries are the network's, not the protocol's.
using HttpChunkCallback = std::function<bool(absl::string_view chunk)>;

// HTTP/1.1 client seam (STYLE.md rule 6). Calls block the calling thread: use it from worker
// threads, never from an event loop. Safe to call from several threads at once.
// An HTTP error status is not a failed Status: callers read `status`. Failed Statuses:
//   INVALID_ARGUMENT bad URL or method; UNAVAILABLE connection refused/reset, DNS failure;
//   DEADLINE_EXCEEDED timeout; CANCELLED aborted by the chunk callback; INTERNAL otherwise.
// Implementations: CurlHttpClient; FakeHttpClient in tests/fakes.
class HttpClient {
 public:
  virtual ~HttpClient() = default;

  virtual absl::StatusOr<HttpResponse> Send(const HttpRequest& request) = 0;
  // Like Send, but hands the body to `on_chunk` as it arrives instead of buffering it.
  virtual absl::StatusOr<HttpResponse> SendStreaming(const HttpRequest& request,
                                                     const HttpChunkCallback& on_chunk) = 0;

  absl::StatusOr<HttpResponse> Get(const std::string& url,
                                   absl::Duration timeout = kDefaultHttpTimeout);
  absl::StatusOr<HttpResponse> PostJson(const std::string& url, std::string json_body,
                                        absl::Duration timeout = kDefaultHttpTimeout);
};

}  // namespace kvbench
