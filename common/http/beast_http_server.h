#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/error.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/http/http_router.h"
#include "common/http/http_server.h"
#include "common/http/http_server_gate.h"
#include "common/http/http_server_session.h"

namespace kvbench {

// HttpServer on Boost.Beast: one io_context run by `io_threads` threads, an acceptor on a strand
// of its own, and one HttpServerSession (on its own strand) per connection. Accepted sockets get
// TCP_NODELAY, so each streamed chunk leaves at once.
class BeastHttpServer final : public HttpServer {
 public:
  // How long to wait before accepting again after accept(2) failed (e.g. out of descriptors).
  static constexpr absl::Duration kAcceptRetryDelay = absl::Milliseconds(100);

  explicit BeastHttpServer(Options options);
  // Stop().
  ~BeastHttpServer() override;
  BeastHttpServer(const BeastHttpServer&) = delete;
  BeastHttpServer& operator=(const BeastHttpServer&) = delete;

  void Handle(const std::string& method, const std::string& path, HttpHandler handler) override;
  void SetFallback(HttpHandler handler) override;
  // FAILED_PRECONDITION if called twice or after Stop(); INVALID_ARGUMENT for an unresolvable
  // host.
  absl::Status Start() override;
  // Never from a handler (it joins the I/O threads).
  void Stop() override;
  int port() const override { return port_.load(); }

 private:
  enum class State { kNew, kRunning, kStopped };

  absl::StatusOr<boost::asio::ip::tcp::endpoint> ResolveEndpoint();
  absl::Status Listen(const boost::asio::ip::tcp::endpoint& endpoint);
  void RunIoThread();
  // Accept strand.
  void Accept();
  void OnAccept(boost::beast::error_code error, boost::asio::ip::tcp::socket socket);
  // A session's strand.
  void OnSessionClosed(uint64_t id);

  // Members in dependency order; destruction runs in reverse, after Stop() joined the threads.
  const Options options_;
  HttpRouter router_;  // filled before Start(), then read-only
  const std::shared_ptr<HttpServerGate> gate_;
  HttpServerSession::Context context_;
  boost::asio::io_context io_context_;
  boost::asio::strand<boost::asio::io_context::executor_type> accept_strand_;
  boost::asio::ip::tcp::acceptor acceptor_;      // accept strand
  boost::asio::steady_timer accept_retry_timer_;  // accept strand
  uint64_t next_session_id_ = 0;                   // accept strand
  std::atomic<int> port_{0};

  std::mutex mu_;
  State state_ = State::kNew;                                                     // guarded by mu_
  std::unordered_map<uint64_t, std::shared_ptr<HttpServerSession>> sessions_;     // guarded by mu_

  std::vector<std::thread> threads_;  // started by Start(), joined by Stop()
};

}  // namespace kvbench
