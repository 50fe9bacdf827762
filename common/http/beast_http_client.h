#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http/async_http_client.h"

namespace kvbench {

namespace beast_http_client_internal {
class BeastHttpClientLoop;
class EndpointCache;
}  // namespace beast_http_client_internal

// AsyncHttpClient on Boost.Beast/Asio (http:// only; kv-runner's default, the faster in the runner
// roofline: tests/bench/runner_roofline_bench.cc).
//
// Threads: `io_threads` threads, each running an io_context of its own (a loop); an exchange
// lives on one loop from start to end, so no strands are needed. Start from a loop's own thread
// (an observer's OnComplete chaining the next request) runs the exchange on that loop at once;
// Start from any other thread posts it to the next loop, round-robin.
//
// Connections: each loop keeps its idle connections per host:port (TCP_NODELAY, most recently
// used first); a response that ends cleanly without "Connection: close" parks its connection for
// the next exchange. An idle connection the server has closed is skipped (looked at when it was
// idle for BeastHttpClientLoop::kIdleCheckAfter or more); a reused connection
// that fails before any response byte arrived (the server closed it as the request went out) is
// replaced by a new one, once, transparently. Host names are resolved once per host:port.
//
// Exchanges: the request head is serialized by Start and written with the caller's body in one
// write (the body is not copied). The response is parsed as it arrives; each socket read ends in
// at most one OnHeaders and one OnBody (more only past BeastHttpClientLoop::kBodyBufferBytes),
// stamped when the read completed. request.timeout bounds the exchange and connect_timeout the
// connect; zero means none.
//
// in_flight() counts an exchange until its OnComplete has returned.
class BeastHttpClient final : public AsyncHttpClient {
 public:
  struct Options {
    // I/O threads (loops); at least 1.
    int io_threads = 1;
  };

  // INVALID_ARGUMENT for io_threads < 1.
  static absl::StatusOr<std::unique_ptr<BeastHttpClient>> Create(Options options);

  // Shutdown().
  ~BeastHttpClient() override;
  BeastHttpClient(const BeastHttpClient&) = delete;
  BeastHttpClient& operator=(const BeastHttpClient&) = delete;

  void Start(const AsyncHttpRequest& request, AsyncHttpObserver* observer) override;
  void Shutdown() override;
  int in_flight() const override { return in_flight_.load(std::memory_order_relaxed); }
  // Posts to the loops round-robin, like Starts from other threads.
  bool Post(std::function<void()> task) override;

 private:
  explicit BeastHttpClient(int io_threads);

  // Members in dependency order; Shutdown() joins the threads before anything is destroyed.
  const std::unique_ptr<beast_http_client_internal::EndpointCache> endpoints_;
  std::vector<std::unique_ptr<beast_http_client_internal::BeastHttpClientLoop>> loops_;
  std::atomic<int> in_flight_{0};
  // Set under mu_, read without it by Starts on the loops (which need no ordering with posts).
  std::atomic<bool> shut_down_{false};
  // Orders Starts that post against Shutdown, so no post lands on a loop that has stopped.
  std::mutex mu_;
  size_t next_loop_ = 0;    // guarded by mu_
  std::mutex shutdown_mu_;  // held for a whole Shutdown(), so a second call waits for the first
  std::vector<std::thread> threads_;
};

}  // namespace kvbench
