#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http/async_http_client.h"

namespace kvbench {

// AsyncHttpClient over libcurl's multi interface (HTTP/1.1; kv-runner --http-client curl-multi).
//
// Threads: each I/O thread owns one CURLM, an epoll set and an eventfd, and runs
// curl_multi_socket_action on the sockets epoll reports ready, so an event costs work for the
// exchanges on that socket only, however many are in flight. Starts from other threads are handed
// over through a mutex-guarded queue and the eventfd, spread round-robin over the I/O threads; a
// Start from an observer (on an I/O thread) stays on that thread and begins in the same loop
// iteration, without a wakeup.
//
// Keep-alive: connections live in each multi handle's connection cache and are reused per
// host:port by the next exchange on that thread. Easy handles are kept per I/O thread and reused
// (one per concurrent exchange, never freed before the client). Connection policy (environment
// proxies ignored, receive buffer...): common/http/curl_policy.h, as in CurlHttpClient.
//
// Failed Statuses, beyond those documented on AsyncHttpObserver::OnComplete:
//   INVALID_ARGUMENT  method other than GET/POST, a GET with a body, a header with CR/LF, a
//                     negative timeout, a malformed URL or a scheme other than http/https.
//   UNAVAILABLE       also a body cut short (connection closed mid-body, chunked or not).
// Messages name the method, the URL, curl's own explanation and the curl error number. An
// observer must not Start again after a CANCELLED from Shutdown (it would be cancelled in turn).
class CurlMultiHttpClient : public AsyncHttpClient {
 public:
  static constexpr int kDefaultIoThreads = 1;
  // No limit on connections per host:port.
  static constexpr int kUnlimitedConnections = 0;
  // Idle connections each I/O thread keeps open for reuse (libcurl's default shrinks with the
  // number of exchanges in flight and would close warm connections between bursts).
  static constexpr long kMaxCachedConnectionsPerThread = 4096;

  struct Options {
    // I/O threads, each with its own multi handle and connections, taking exchanges in turn.
    int io_threads = kDefaultIoThreads;
    // Open connections per host:port and I/O thread; exchanges beyond it wait for a free one.
    int max_connections_per_host = kUnlimitedConnections;
  };

  // Initializes libcurl once per process and starts the I/O threads. INVALID_ARGUMENT for bad
  // options; INTERNAL if libcurl, epoll or eventfd fail.
  static absl::StatusOr<std::unique_ptr<CurlMultiHttpClient>> Create();
  static absl::StatusOr<std::unique_ptr<CurlMultiHttpClient>> Create(const Options& options);

  // Shutdown().
  ~CurlMultiHttpClient() override;
  CurlMultiHttpClient(const CurlMultiHttpClient&) = delete;
  CurlMultiHttpClient& operator=(const CurlMultiHttpClient&) = delete;

  void Start(const AsyncHttpRequest& request, AsyncHttpObserver* observer) override;
  void Shutdown() override;
  // An exchange counts until its OnComplete has returned: at zero, no observer is in use.
  int in_flight() const override { return in_flight_.load(std::memory_order_acquire); }

 private:
  class IoThread;  // one CURLM and its loop, defined in the .cc

  CurlMultiHttpClient();

  // Members in dependency order: the I/O threads update in_flight_.
  std::atomic<int> in_flight_{0};
  std::atomic<size_t> next_thread_{0};
  std::vector<std::unique_ptr<IoThread>> io_threads_;
  std::mutex shutdown_mu_;
  bool shut_down_ = false;  // guarded by shutdown_mu_
};

}  // namespace kvbench
