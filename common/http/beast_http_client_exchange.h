#pragma once

// BeastHttpClient's internals: one exchange on one loop. See beast_http_client.h.

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>
// GCC 12 with -fsanitize=address sees a boost::optional in Beast's parser as maybe-uninitialized
// (a false positive, fatal under -Werror); the warning is located in these headers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/beast/http/basic_parser.hpp>
#pragma GCC diagnostic pop

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/async_http_client.h"
#include "common/http/beast_http_client_loop.h"

namespace kvbench::beast_http_client_internal {

// A response parser that keeps no header fields: the exchange reads only the status, and the base
// parser tracks the framing and keep-alive fields itself. Beast's response_parser stored every
// field in an allocated node per response, a visible share of the replay client's cost per
// request. Body bytes are copied into the buffer SetBodyBuffer gave, as buffer_body does; when it
// is full, put() stops with http::error::need_buffer.
class ResponseParser final : public boost::beast::http::basic_parser<false> {
 public:
  void SetBodyBuffer(char* data, size_t size) {
    body_ = data;
    body_space_ = size;
  }
  size_t body_space() const { return body_space_; }  // what SetBodyBuffer gave, less what came
  int status() const { return status_; }

 private:
  using string_view = boost::beast::string_view;
  using error_code = boost::beast::error_code;

  void on_request_impl(boost::beast::http::verb, string_view, string_view, int,
                       error_code&) override {}
  void on_response_impl(int code, string_view, int, error_code&) override { status_ = code; }
  void on_field_impl(boost::beast::http::field, string_view, string_view, error_code&) override {}
  void on_header_impl(error_code&) override {}
  void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
  size_t on_body_impl(string_view body, error_code& error) override { return Take(body, error); }
  void on_chunk_header_impl(std::uint64_t, string_view, error_code&) override {}
  size_t on_chunk_body_impl(std::uint64_t, string_view body, error_code& error) override {
    return Take(body, error);
  }
  void on_finish_impl(error_code&) override {}

  size_t Take(string_view body, error_code& error);

  char* body_ = nullptr;
  size_t body_space_ = 0;
  int status_ = 0;
};

// One request, prepared off the loop by BeastHttpClient::Start.
struct ExchangeParams {
  AsyncHttpObserver* observer = nullptr;
  std::atomic<int>* in_flight = nullptr;  // decremented once OnComplete has returned
  absl::Status refused;  // not OK: complete with it at once (bad URL, method, header...)
  std::string method;    // for messages
  std::string url;       // for messages
  std::string host;      // to resolve: a name or an address, IPv6 without brackets
  uint16_t port = 0;
  std::string key;   // host:port as the URL spells it: the pool's key
  std::string head;  // request line and headers, serialized, up to the blank line
  absl::string_view body;
  // Chunked body: written as chunk_prefix, body, chunk_suffix (both empty otherwise).
  std::string chunk_prefix;  // "<hex size>\r\n", empty for an empty body
  std::string chunk_suffix;  // "\r\n0\r\n\r\n", or "0\r\n\r\n" for an empty body
  bool close_after = false;  // the request asked for Connection: close
  absl::Duration timeout;
  absl::Duration connect_timeout;
};

// One exchange: takes an idle connection to its host:port (or connects), writes the request in
// one write, parses the response as it arrives and reports it to the observer. A reused
// connection that fails before any response byte came is replaced by a new one, once. Runs on
// its loop's thread; pending handlers hold it alive, as does the loop's list while in flight.
class BeastHttpClientExchange : public std::enable_shared_from_this<BeastHttpClientExchange> {
 public:
  // Largest response header accepted.
  static constexpr uint32_t kMaxHeaderBytes = 1024 * 1024;
  // Bytes asked of one socket read.
  static constexpr size_t kReadBytes = 64 * 1024;
  // TCP keep-alive probes, so a long quiet stream (timeout zero) notices a vanished peer.
  static constexpr absl::Duration kTcpKeepAliveIdle = absl::Seconds(60);
  static constexpr absl::Duration kTcpKeepAliveInterval = absl::Seconds(30);

  BeastHttpClientExchange(BeastHttpClientLoop* loop, ExchangeParams params);
  BeastHttpClientExchange(const BeastHttpClientExchange&) = delete;
  BeastHttpClientExchange& operator=(const BeastHttpClientExchange&) = delete;

  void Begin();
  // Completes the exchange with CANCELLED (no-op once complete).
  void Cancel(absl::string_view why);

 private:
  using Clock = std::chrono::steady_clock;

  void ArmTimer(Clock::time_point when);
  void OnTimer(uint64_t generation, boost::beast::error_code error);
  void Acquire();
  void Connect();
  void OnResolved(boost::beast::error_code error,
                  const boost::asio::ip::tcp::resolver::results_type& results);
  void ConnectTo(std::vector<boost::asio::ip::tcp::endpoint> endpoints);
  void OnConnected(boost::beast::error_code error);
  void Write();
  void OnWritten(boost::beast::error_code error);
  // A fresh parser_ for the next response (the first, or the final one after a 1xx).
  void NewParser();
  void Read();
  void OnRead(boost::beast::error_code error, size_t bytes);
  // Parses what the connection's buffer holds and reports it; false once the exchange is over.
  bool Parse(MonotonicTime arrival);
  void OnEof();
  // A failed step: retries on a new connection if the rule allows, else completes.
  void Fail(boost::beast::error_code error, absl::string_view during);
  absl::Status ErrorStatus(boost::beast::error_code error, absl::string_view during) const;
  void Finish(absl::Status status, bool keep_connection = false);

  BeastHttpClientLoop* const loop_;
  const ExchangeParams params_;
  boost::asio::steady_timer timer_;
  uint64_t timer_generation_ = 0;  // bumped on every re-arm, so a stale expiry is ignored
  std::optional<Clock::time_point> deadline_;
  bool connecting_ = false;
  std::unique_ptr<BeastHttpClientConnection> connection_;
  std::optional<ResponseParser> parser_;
  bool reused_ = false;        // connection_ came from the pool
  bool retried_ = false;       // this is the second connection
  bool received_ = false;      // a response byte came on connection_
  bool headers_sent_ = false;  // OnHeaders was called
  bool done_ = false;          // OnComplete was called
};

}  // namespace kvbench::beast_http_client_internal
