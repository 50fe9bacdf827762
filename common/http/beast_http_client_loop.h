#pragma once

// BeastHttpClient's internals: the state of one I/O thread. See beast_http_client.h.

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kvbench::beast_http_client_internal {

class BeastHttpClientExchange;

// host:port -> its addresses, shared by every loop of one client: each host:port is resolved
// once (a concurrent first use may resolve it twice) and kept for the client's life.
class EndpointCache {
 public:
  std::optional<std::vector<boost::asio::ip::tcp::endpoint>> Find(const std::string& key) const;
  void Insert(const std::string& key, std::vector<boost::asio::ip::tcp::endpoint> endpoints);

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::vector<boost::asio::ip::tcp::endpoint>>
      endpoints_;  // guarded by mu_
};

// One TCP connection to a host:port, kept alive between exchanges.
struct BeastHttpClientConnection {
  explicit BeastHttpClientConnection(boost::asio::io_context& io) : socket(io) {}

  // Idle only: true if the peer closed the connection (or sent bytes nobody asked for) since its
  // last response. Does not block.
  bool IdleDead();

  boost::asio::ip::tcp::socket socket;
  boost::beast::flat_buffer wire;                   // bytes read and not yet parsed
  std::chrono::steady_clock::time_point parked_at;  // when it last went idle
};

// One I/O thread: its io_context, the idle connections per host:port and the exchanges in
// flight on it. Apart from the constructor, Run() and io(), everything runs on the thread.
class BeastHttpClientLoop {
 public:
  // Decoded body bytes of one parse step go here and straight to the observer, so one buffer
  // serves every connection of the loop.
  static constexpr size_t kBodyBufferBytes = 64 * 1024;
  // Idle connections kept per host:port; more are closed when their exchange ends.
  static constexpr size_t kMaxIdlePerHost = 4096;
  // A connection idle for less than this is reused without first checking that the server has
  // not closed it (IdleDead, a system call per request): servers close idle connections after
  // seconds at the least, and a reused connection that fails before any response byte is
  // replaced anyway (beast_http_client.h).
  static constexpr std::chrono::milliseconds kIdleCheckAfter{500};

  // `owner` identifies the client (see Current()); `endpoints` outlives the loop.
  BeastHttpClientLoop(const void* owner, EndpointCache* endpoints);
  BeastHttpClientLoop(const BeastHttpClientLoop&) = delete;
  BeastHttpClientLoop& operator=(const BeastHttpClientLoop&) = delete;

  // The loop whose thread is calling, or null on any other thread.
  static BeastHttpClientLoop* Current();

  // The thread's body: runs the io_context until Stop() and its aftermath are done.
  void Run();
  // Cancels every exchange in flight, closes idle connections and lets Run() return once the
  // handlers that cancelling left have run. Later exchanges are refused (stopping()).
  void Stop();
  bool stopping() const { return stopping_; }

  const void* owner() const { return owner_; }
  boost::asio::io_context& io() { return io_; }
  boost::asio::ip::tcp::resolver& resolver() { return resolver_; }
  EndpointCache& endpoints() { return *endpoints_; }
  char* body_buffer() { return body_buffer_.get(); }

  // The most recently parked live connection to `key`, or null; dead ones found are closed.
  std::unique_ptr<BeastHttpClientConnection> TakeIdle(const std::string& key);
  void ParkIdle(const std::string& key, std::unique_ptr<BeastHttpClientConnection> connection);

  // Exchanges in flight, so that Stop() can cancel them; Remove is a no-op for one not added.
  void Add(std::shared_ptr<BeastHttpClientExchange> exchange);
  void Remove(BeastHttpClientExchange* exchange);

 private:
  // Members in dependency order: I/O objects after the io_context they use.
  const void* const owner_;
  EndpointCache* const endpoints_;
  boost::asio::io_context io_{1};
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::ip::tcp::resolver resolver_;
  const std::unique_ptr<char[]> body_buffer_;
  bool stopping_ = false;
  std::unordered_map<std::string, std::vector<std::unique_ptr<BeastHttpClientConnection>>> idle_;
  std::unordered_map<BeastHttpClientExchange*, std::shared_ptr<BeastHttpClientExchange>> active_;
};

}  // namespace kvbench::beast_http_client_internal
