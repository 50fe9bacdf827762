#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/http_client.h"

namespace kvbench {

// The clock an AsyncHttpClient stamps arrivals with: steady_clock (CLOCK_MONOTONIC on Linux).
using MonotonicTime = std::chrono::steady_clock::time_point;

// One streamed exchange's listener. Its methods run on one of the client's I/O threads (except
// the CANCELLED refusal of a Start after Shutdown, which runs on the caller's thread); an
// exchange's calls never overlap and come in this order:
//   OnHeaders? OnBody* OnComplete
// They must be quick and must not block (the replay's timing rides on them) and must not call
// back into the client except through AsyncHttpClient::Start, which is allowed from OnComplete —
// but never again after a CANCELLED completion (after Shutdown that would recurse forever).
class AsyncHttpObserver {
 public:
  virtual ~AsyncHttpObserver() = default;

  // The response's status line and headers arrived (HTTP status, e.g. 200 or 503).
  virtual void OnHeaders(int http_status, MonotonicTime arrival) = 0;
  // Body bytes as they arrived off the socket (chunked framing removed). Chunk boundaries are
  // the network's, not the protocol's. Return false to abort the exchange: OnComplete then
  // follows with CANCELLED.
  virtual bool OnBody(absl::string_view bytes, MonotonicTime arrival) = 0;
  // Exactly once, last. OK: the whole response arrived (its status was reported by OnHeaders).
  // Otherwise: UNAVAILABLE (connect refused, reset, closed before the response ended),
  // DEADLINE_EXCEEDED (request.timeout), CANCELLED (OnBody returned false, or Shutdown),
  // INVALID_ARGUMENT (bad URL/method), INTERNAL (anything else). After OnComplete the client
  // never touches the observer again.
  virtual void OnComplete(absl::Status status, MonotonicTime end) = 0;
};

// One exchange to start. The body is not copied: the bytes `body` points at must stay alive and
// unchanged until the exchange's OnComplete (kv-runner serializes every prompt before the run).
struct AsyncHttpRequest {
  std::string method = "POST";  // GET or POST
  std::string url;              // http://host:port/path?query
  HttpHeaders headers;
  absl::string_view body;
  // POST the body with Transfer-Encoding: chunked (one chunk) instead of Content-Length. Behind a
  // Go reverse proxy (Caddy 2.6.2) a Content-Length body has a race: an upstream that answers
  // within microseconds of the body makes the proxy close the upstream connection mid-response
  // and return a clean but empty 200 (golang/go#40747, reference/caddy.md). A chunked body ends
  // with its terminator, read before the upstream sees the request, so the race cannot happen.
  bool chunked_body = false;
  // Whole exchange, start to last byte. Zero = no limit.
  absl::Duration timeout = kDefaultHttpTimeout;
  absl::Duration connect_timeout = kDefaultHttpConnectTimeout;
};

// Event-driven HTTP/1.1 client for many concurrent streamed exchanges (kv-runner's replay):
// a fixed set of I/O threads multiplex every connection; connections are kept alive and reused
// per host:port; request bodies are sent as given (no copies when the caller keeps them alive).
// Start is thread-safe and never blocks on the network.
//
// Implementation: BeastHttpClient (Boost.Beast); FakeAsyncHttpClient in tests/fakes.
class AsyncHttpClient {
 public:
  virtual ~AsyncHttpClient() = default;

  // Begins `request`; `observer` must stay alive until its OnComplete.
  virtual void Start(const AsyncHttpRequest& request, AsyncHttpObserver* observer) = 0;

  // Aborts every exchange in flight (each gets OnComplete(CANCELLED)), refuses later Starts
  // (OnComplete(CANCELLED) at once) and joins the I/O threads. Idempotent; the destructor calls
  // it. Never call from an observer.
  virtual void Shutdown() = 0;

  // Exchanges started whose OnComplete has not yet returned (0: no observer is in use).
  virtual int in_flight() const = 0;

  // Runs `task` on one of the I/O threads (in turn) after what is already queued there, so that
  // how late it runs is how late that thread answers its sockets (kv-runner's loop-lag probe).
  // `task` must be quick and must not call into the client. False when the client
  // cannot (the default) or is shut down; `task` then never runs.
  virtual bool Post(std::function<void()> task) {
    (void)task;
    return false;
  }
};

}  // namespace kvbench
