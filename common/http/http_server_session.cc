#include "common/http/http_server_session.h"

#include <exception>
#include <iterator>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

#include "common/http/http_session_responder.h"
#include "common/log/logging.h"

namespace kvbench {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;

constexpr absl::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
// Read sizes while a handler works (rarely more than a hang-up arrives) and while draining.
constexpr size_t kWatchReadBytes = 4096;
constexpr size_t kDrainReadBytes = 64 * 1024;

std::string ToString(beast::string_view view) { return std::string(view.data(), view.size()); }

bool IsHttpParseError(const beast::error_code& error) {
  return error.category() == make_error_code(http::error::bad_method).category() &&
         error != http::error::end_of_stream && error != http::error::partial_message;
}

}  // namespace

HttpServerSession::HttpServerSession(uint64_t id, boost::asio::ip::tcp::socket socket,
                                     const Context* context)
    : id_(id), socket_(std::move(socket)), context_(context) {}

void HttpServerSession::Start() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->ReadRequest(); });
}

void HttpServerSession::Close() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->CloseNow(); });
}

bool HttpServerSession::Enqueue(absl::FunctionRef<void(std::string*)> fill,
                                HttpWriteQueue::End end) {
  const HttpWriteQueue::AppendResult result = queue_.Append(fill, end);
  if (!result.accepted) return false;
  if (end != HttpWriteQueue::End::kNone) response_queued_.store(true);
  if (result.flush_needed) {
    asio::post(socket_.get_executor(), [self = shared_from_this()] { self->Flush(); });
  }
  return true;
}

void HttpServerSession::ReadRequest() {
  if (close_done_) return;
  parser_.emplace();
  parser_->body_limit(static_cast<uint64_t>(context_->max_body_bytes));
  parser_->header_limit(kMaxHeaderBytes);
  http::async_read_header(socket_, buffer_, *parser_,
                          [self = shared_from_this()](beast::error_code error, size_t) {
                            self->OnHeader(error);
                          });
}

void HttpServerSession::OnHeader(beast::error_code error) {
  if (error) return OnReadError(error);
  if (parser_->is_done()) return OnRequest({});
  if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
    asio::async_write(socket_, asio::buffer(kContinue.data(), kContinue.size()),
                      [self = shared_from_this()](beast::error_code write_error, size_t) {
                        if (write_error) return self->CloseNow();
                        self->ReadBody();
                      });
    return;
  }
  ReadBody();
}

void HttpServerSession::ReadBody() {
  http::async_read(socket_, buffer_, *parser_,
                   [self = shared_from_this()](beast::error_code error, size_t) {
                     self->OnRequest(error);
                   });
}

void HttpServerSession::OnRequest(beast::error_code error) {
  if (error) return OnReadError(error);
  Dispatch();
  // Unless the response is complete already, watch for a hang-up while the handler works.
  if (!close_done_ && !response_queued_.load()) ArmWatch();
}

void HttpServerSession::OnReadError(beast::error_code error) {
  if (error == http::error::body_limit) return RespondAndClose(413);
  if (error == http::error::header_limit) return RespondAndClose(431);
  if (IsHttpParseError(error)) return RespondAndClose(400);
  CloseNow();  // the client closed, the connection broke, or the server is stopping
}

void HttpServerSession::Dispatch() {
  http::request<http::string_body> message = parser_->release();
  parser_.reset();
  HttpServerRequest request;
  request.method = ToString(message.method_string());
  request.target = ToString(message.target());
  const size_t query_start = request.target.find('?');
  request.path = request.target.substr(0, query_start);
  if (query_start != std::string::npos) request.query = request.target.substr(query_start + 1);
  request.headers.reserve(static_cast<size_t>(std::distance(message.begin(), message.end())));
  for (const auto& field : message) {
    request.headers.emplace_back(ToString(field.name_string()), ToString(field.value()));
  }
  request.body = std::move(message.body());

  response_queued_.store(false);
  auto responder = std::make_shared<HttpSessionResponder>(context_->gate, weak_from_this(),
                                                          message.version(), message.keep_alive());
  const HttpRouter::Route route = context_->router->Find(request.method, request.path);
  if (route.handler == nullptr) {
    HttpHeaders headers;
    if (!route.allow.empty()) headers.emplace_back("Allow", route.allow);
    responder->Respond(route.status, std::move(headers), "");
    return;
  }
  // A handler must not throw; if one does, its responder answers 500 as it is dropped.
  try {
    (*route.handler)(request, std::move(responder));
  } catch (const std::exception& e) {
    KV_LOG_EVERY_N_SEC(ERROR, 10) << "HTTP handler threw method=" << request.method
                                  << " path=" << request.path << " what=" << e.what();
  } catch (...) {
    KV_LOG_EVERY_N_SEC(ERROR, 10) << "HTTP handler threw method=" << request.method
                                  << " path=" << request.path;
  }
}

void HttpServerSession::RespondAndClose(int status) {
  parser_.reset();
  HttpSessionResponder(context_->gate, weak_from_this(), 11, /*keep_alive=*/false)
      .Respond(status, {}, "");
}

void HttpServerSession::ArmWatch() {
  watching_ = true;
  socket_.async_read_some(buffer_.prepare(kWatchReadBytes),
                          [self = shared_from_this()](beast::error_code error, size_t bytes) {
                            self->OnWatchRead(error, bytes);
                          });
}

void HttpServerSession::OnWatchRead(beast::error_code error, size_t bytes) {
  watching_ = false;
  if (draining_) return OnDrainRead(error, bytes);
  if (awaiting_request_ && (!error || error == asio::error::operation_aborted)) {
    awaiting_request_ = false;
    buffer_.commit(bytes);
    return ReadRequest();  // returns at once if the connection was closed meanwhile
  }
  if (error) return CloseNow();  // the client hung up
  buffer_.commit(bytes);
  if (!close_done_ && buffer_.size() < kMaxBufferedWhileBusy) ArmWatch();
}

void HttpServerSession::Flush() {
  if (writing_ || close_done_) return;
  if (!queue_.Take(&batch_)) return;
  writing_ = true;
  asio::async_write(socket_, asio::buffer(batch_.bytes),
                    [self = shared_from_this()](beast::error_code error, size_t) {
                      self->OnWritten(error);
                    });
}

void HttpServerSession::OnWritten(beast::error_code error) {
  writing_ = false;
  if (error) return CloseNow();
  const HttpWriteQueue::End end = batch_.end;
  HttpWriteQueue::Recycle(&batch_);
  if (end != HttpWriteQueue::End::kNone) OnResponseDone(end);
  Flush();
}

void HttpServerSession::OnResponseDone(HttpWriteQueue::End end) {
  if (end == HttpWriteQueue::End::kClose) return CloseGracefully();
  if (watching_) {
    // The next request may be buffered already (pipelined): stop watching, then read it. No
    // write is in flight now, so cancel() stops only the watch.
    awaiting_request_ = true;
    beast::error_code ignored;
    socket_.cancel(ignored);
    return;
  }
  ReadRequest();
}

void HttpServerSession::CloseGracefully() {
  closed_.store(true);
  queue_.Close();
  beast::error_code ignored;
  socket_.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
  draining_ = true;
  buffer_.consume(buffer_.size());
  if (!watching_) Drain();  // else OnWatchRead drains
}

void HttpServerSession::Drain() {
  socket_.async_read_some(buffer_.prepare(kDrainReadBytes),
                          [self = shared_from_this()](beast::error_code error, size_t bytes) {
                            self->OnDrainRead(error, bytes);
                          });
}

void HttpServerSession::OnDrainRead(beast::error_code error, size_t bytes) {
  drained_bytes_ += bytes;
  if (error || close_done_ || drained_bytes_ >= kMaxDrainBytes) return CloseNow();
  Drain();
}

void HttpServerSession::CloseNow() {
  if (close_done_) return;
  close_done_ = true;
  closed_.store(true);
  queue_.Close();
  beast::error_code ignored;
  socket_.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  if (context_->on_closed) context_->on_closed(id_);
}

}  // namespace kvbench
