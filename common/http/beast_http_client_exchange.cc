#include "common/http/beast_http_client_exchange.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kvbench::beast_http_client_internal {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

// Longer than any run; beyond it a duration counts as no limit (and stays within chrono's range).
constexpr absl::Duration kNoLimit = absl::Hours(24 * 365 * 10);

bool Limited(absl::Duration duration) {
  return duration > absl::ZeroDuration() && duration < kNoLimit;
}

// The peer or the network failed: the caller may retry.
bool IsUnavailable(beast::error_code error) {
  return error == asio::error::eof || error == asio::error::connection_refused ||
         error == asio::error::connection_reset || error == asio::error::connection_aborted ||
         error == asio::error::broken_pipe || error == asio::error::not_connected ||
         error == asio::error::shut_down || error == asio::error::timed_out ||
         error == asio::error::host_unreachable || error == asio::error::network_unreachable ||
         error == asio::error::network_down || error == asio::error::network_reset ||
         error == asio::error::host_not_found || error == asio::error::host_not_found_try_again ||
         error == asio::error::no_data || error == http::error::partial_message ||
         error == http::error::end_of_stream;
}

// TCP_NODELAY (each request leaves at once) and keep-alive probes; best effort.
void TuneSocket(tcp::socket& socket) {
  beast::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  socket.set_option(asio::socket_base::keep_alive(true), ignored);
  const int idle_s =
      static_cast<int>(absl::ToInt64Seconds(BeastHttpClientExchange::kTcpKeepAliveIdle));
  const int interval_s =
      static_cast<int>(absl::ToInt64Seconds(BeastHttpClientExchange::kTcpKeepAliveInterval));
  ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof(idle_s));
  ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPINTVL, &interval_s, sizeof(interval_s));
}

}  // namespace

size_t ResponseParser::Take(string_view body, error_code& error) {
  const size_t taken = std::min(body.size(), body_space_);
  if (taken > 0) std::memcpy(body_, body.data(), taken);
  body_ += taken;
  body_space_ -= taken;
  if (taken < body.size()) error = http::error::need_buffer;
  return taken;
}

BeastHttpClientExchange::BeastHttpClientExchange(BeastHttpClientLoop* loop, ExchangeParams params)
    : loop_(loop), params_(std::move(params)), timer_(loop->io()) {}

void BeastHttpClientExchange::Begin() {
  if (!params_.refused.ok()) return Finish(params_.refused);
  if (loop_->stopping()) return Cancel("the client shut down");
  loop_->Add(shared_from_this());
  if (Limited(params_.timeout)) {
    deadline_ = Clock::now() + absl::ToChronoNanoseconds(params_.timeout);
    ArmTimer(*deadline_);
  }
  Acquire();
}

void BeastHttpClientExchange::Cancel(absl::string_view why) {
  Finish(absl::CancelledError(absl::StrCat(params_.method, " ", params_.url, ": ", why)));
}

void BeastHttpClientExchange::ArmTimer(Clock::time_point when) {
  const uint64_t generation = ++timer_generation_;
  timer_.expires_at(when);
  timer_.async_wait([self = shared_from_this(), generation](beast::error_code error) {
    self->OnTimer(generation, error);
  });
}

void BeastHttpClientExchange::OnTimer(uint64_t generation, beast::error_code error) {
  if (error || done_ || generation != timer_generation_) return;
  const bool connecting = connecting_ && (!deadline_ || Clock::now() < *deadline_);
  Finish(absl::DeadlineExceededError(absl::StrCat(
      params_.method, " ", params_.url, ": ",
      connecting
          ? absl::StrCat("connect timed out after ", absl::FormatDuration(params_.connect_timeout))
          : absl::StrCat("timed out after ", absl::FormatDuration(params_.timeout)))));
}

void BeastHttpClientExchange::Acquire() {
  // The retry takes a new connection: the pool may hold more that the server closed alike.
  if (!retried_) connection_ = loop_->TakeIdle(params_.key);
  reused_ = connection_ != nullptr;
  received_ = false;
  if (reused_) return Write();
  Connect();
}

void BeastHttpClientExchange::Connect() {
  connection_ = std::make_unique<BeastHttpClientConnection>(loop_->io());
  connecting_ = true;
  if (Limited(params_.connect_timeout)) {
    Clock::time_point when = Clock::now() + absl::ToChronoNanoseconds(params_.connect_timeout);
    if (deadline_) when = std::min(when, *deadline_);
    ArmTimer(when);
  }
  if (auto cached = loop_->endpoints().Find(params_.key)) return ConnectTo(*std::move(cached));
  beast::error_code error;
  const asio::ip::address address = asio::ip::make_address(params_.host, error);
  if (!error) {
    std::vector<tcp::endpoint> endpoints = {tcp::endpoint(address, params_.port)};
    loop_->endpoints().Insert(params_.key, endpoints);
    return ConnectTo(std::move(endpoints));
  }
  loop_->resolver().async_resolve(
      params_.host, std::to_string(params_.port), tcp::resolver::numeric_service,
      [self = shared_from_this()](beast::error_code resolve_error,
                                  const tcp::resolver::results_type& results) {
        self->OnResolved(resolve_error, results);
      });
}

void BeastHttpClientExchange::OnResolved(beast::error_code error,
                                         const tcp::resolver::results_type& results) {
  if (done_) return;
  if (!error && results.empty()) error = asio::error::host_not_found;
  if (error) return Finish(ErrorStatus(error, absl::StrCat("resolving ", params_.host)));
  std::vector<tcp::endpoint> endpoints;
  for (const auto& entry : results) endpoints.push_back(entry.endpoint());
  loop_->endpoints().Insert(params_.key, endpoints);
  ConnectTo(std::move(endpoints));
}

void BeastHttpClientExchange::ConnectTo(std::vector<tcp::endpoint> endpoints) {
  asio::async_connect(connection_->socket, std::move(endpoints),
                      [self = shared_from_this()](beast::error_code error, const tcp::endpoint&) {
                        self->OnConnected(error);
                      });
}

void BeastHttpClientExchange::OnConnected(beast::error_code error) {
  if (done_) return;
  connecting_ = false;
  if (error) return Finish(ErrorStatus(error, "connecting"));
  TuneSocket(connection_->socket);
  if (deadline_) {
    ArmTimer(*deadline_);
  } else {
    ++timer_generation_;
    timer_.cancel();
  }
  Write();
}

void BeastHttpClientExchange::Write() {
  const std::array<asio::const_buffer, 4> buffers = {
      asio::buffer(params_.head), asio::buffer(params_.chunk_prefix),
      asio::buffer(params_.body.data(), params_.body.size()), asio::buffer(params_.chunk_suffix)};
  asio::async_write(
      connection_->socket, buffers,
      [self = shared_from_this()](beast::error_code error, size_t) { self->OnWritten(error); });
}

void BeastHttpClientExchange::OnWritten(beast::error_code error) {
  if (done_) return;
  if (error) return Fail(error, "sending the request");
  NewParser();
  Read();
}

void BeastHttpClientExchange::NewParser() {
  parser_.emplace();
  parser_->header_limit(kMaxHeaderBytes);
  // No limit, spelled as the largest one: Beast 1.74 compares a Content-Length with a body_limit
  // of boost::none as larger than it, and fails such a response with body_limit.
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  parser_->eager(true);
}

void BeastHttpClientExchange::Read() {
  connection_->socket.async_read_some(
      connection_->wire.prepare(kReadBytes),
      [self = shared_from_this()](beast::error_code error, size_t bytes) {
        self->OnRead(error, bytes);
      });
}

void BeastHttpClientExchange::OnRead(beast::error_code error, size_t bytes) {
  const MonotonicTime arrival = Clock::now();
  if (done_) return;
  if (bytes > 0) {
    received_ = true;
    connection_->wire.commit(bytes);
    if (!Parse(arrival)) return;
  }
  if (error == asio::error::eof) return OnEof();
  if (error) return Fail(error, "reading the response");
  Read();
}

bool BeastHttpClientExchange::Parse(MonotonicTime arrival) {
  AsyncHttpObserver* const observer = params_.observer;
  char* const body_buffer = loop_->body_buffer();
  while (connection_->wire.size() > 0) {
    parser_->SetBodyBuffer(body_buffer, BeastHttpClientLoop::kBodyBufferBytes);
    beast::error_code error;
    const size_t used = parser_->put(connection_->wire.data(), error);
    connection_->wire.consume(used);
    const size_t body_bytes = BeastHttpClientLoop::kBodyBufferBytes - parser_->body_space();
    if (parser_->is_header_done() && !headers_sent_) {
      const int status = parser_->status();
      if (status / 100 == 1 && status != 101) {  // interim (100 Continue...): the final follows
        NewParser();
        continue;
      }
      headers_sent_ = true;
      observer->OnHeaders(status, arrival);
    }
    if (body_bytes > 0 && !observer->OnBody(absl::string_view(body_buffer, body_bytes), arrival)) {
      Cancel("aborted by the observer");
      return false;
    }
    if (error == http::error::need_more) return true;
    if (error && error != http::error::need_buffer) {
      Finish(ErrorStatus(error, "parsing the response"));
      return false;
    }
    if (parser_->is_done()) {
      const bool keep =
          parser_->keep_alive() && !params_.close_after && connection_->wire.size() == 0;
      Finish(absl::OkStatus(), keep);
      return false;
    }
    if (used == 0 && body_bytes == 0) return true;  // no progress: wait for more bytes
  }
  return true;
}

void BeastHttpClientExchange::OnEof() {
  if (!parser_->got_some()) return Fail(asio::error::eof, "awaiting the response");
  beast::error_code error;
  parser_->put_eof(error);  // completes a body delimited by the connection's end
  if (error || !parser_->is_done()) {
    return Finish(absl::UnavailableError(absl::StrCat(
        params_.method, " ", params_.url, ": the server closed the connection before the ",
        parser_->is_header_done() ? "response body ended" : "response header ended")));
  }
  Finish(absl::OkStatus());
}

void BeastHttpClientExchange::Fail(beast::error_code error, absl::string_view during) {
  if (reused_ && !received_ && !retried_ && error != asio::error::operation_aborted) {
    retried_ = true;
    parser_.reset();
    connection_.reset();  // nothing is pending on it: the failed step was its only operation
    return Acquire();
  }
  Finish(ErrorStatus(error, during));
}

absl::Status BeastHttpClientExchange::ErrorStatus(beast::error_code error,
                                                  absl::string_view during) const {
  std::string message =
      absl::StrCat(params_.method, " ", params_.url, ": ", during, ": ", error.message());
  if (IsUnavailable(error)) return absl::UnavailableError(std::move(message));
  if (error == asio::error::operation_aborted) return absl::CancelledError(std::move(message));
  return absl::InternalError(std::move(message));
}

void BeastHttpClientExchange::Finish(absl::Status status, bool keep_connection) {
  if (done_) return;
  done_ = true;
  const std::shared_ptr<BeastHttpClientExchange> self = shared_from_this();
  ++timer_generation_;
  timer_.cancel();
  if (connection_ != nullptr) {
    if (keep_connection) {
      loop_->ParkIdle(params_.key, std::move(connection_));
    } else {
      // Pending operations end with operation_aborted; the object lives as long as this one.
      beast::error_code ignored;
      connection_->socket.close(ignored);
    }
  }
  loop_->Remove(this);
  params_.observer->OnComplete(std::move(status), Clock::now());
  params_.in_flight->fetch_sub(1);
}

}  // namespace kvbench::beast_http_client_internal
