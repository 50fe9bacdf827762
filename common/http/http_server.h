#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/http_client.h"  // HttpHeaders

namespace kvbench {

// One request as the server received it.
struct HttpServerRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // path and query, as sent
  std::string path;    // target without the query
  std::string query;   // after '?', without it; "" when none
  HttpHeaders headers;
  std::string body;

  // The first header named `name` (case-insensitive), if any.
  std::optional<std::string> Header(absl::string_view name) const;
};

// The answer to one request: either whole (Respond) or streamed (StartStream, SendChunk...,
// EndStream) with chunked transfer encoding, each chunk written as soon as possible. Exactly one
// of the two forms, once. Every method is thread-safe and returns at once: writes are queued on
// the connection in call order. After the client has gone, calls are no-ops and closed() is true.
// If the last reference is dropped without a response, the server answers 500 (or, mid-stream,
// ends the stream) so no connection hangs.
class HttpResponder {
 public:
  virtual ~HttpResponder() = default;
  virtual void Respond(int status, HttpHeaders headers, std::string body) = 0;
  virtual void StartStream(int status, HttpHeaders headers) = 0;
  virtual void SendChunk(std::string data) = 0;
  virtual void EndStream() = 0;
  virtual bool closed() const = 0;
};

// Runs on a server I/O thread: must not block. Hand slow work to another thread, keeping the
// responder; respond from there.
using HttpHandler =
    std::function<void(const HttpServerRequest& request, std::shared_ptr<HttpResponder> responder)>;

// An HTTP/1.1 server on Boost.Beast (asynchronous, keep-alive, chunked streaming) for the
// simulators and other servers kvbench runs. It does not listen until Start(): a client sees
// "connection refused" until then, as with vLLM while it loads.
class HttpServer {
 public:
  struct Options {
    std::string host = "127.0.0.1";
    int port = 0;  // 0: pick a free port
    int io_threads = 1;
    size_t max_body_bytes = 256u << 20;  // larger requests get 413
  };

  static std::unique_ptr<HttpServer> Create(Options options);
  virtual ~HttpServer() = default;

  // Registers `handler` for an exact method and path. Call before Start().
  virtual void Handle(const std::string& method, const std::string& path, HttpHandler handler) = 0;
  // Handles every request no route matches (default: 404 with an empty body; a known path with
  // another method gets 405).
  virtual void SetFallback(HttpHandler handler) = 0;
  // Binds, listens and starts the I/O threads. UNAVAILABLE naming the address if it cannot bind.
  virtual absl::Status Start() = 0;
  // Stops listening, closes every connection, joins the threads. Idempotent.
  virtual void Stop() = 0;
  // The bound port, after Start().
  virtual int port() const = 0;
};

}  // namespace kvbench
