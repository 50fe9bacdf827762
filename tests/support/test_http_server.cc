#include "tests/support/test_http_server.h"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace kvbench::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

// Large enough for any prompt a simulator test sends.
constexpr uint64_t kMaxRequestBodyBytes = uint64_t{1} << 30;
constexpr uint32_t kMaxRequestHeaderBytes = 64 * 1024;
// Caps AwaitGate's wait so an infinite timeout stays representable in chrono.
constexpr absl::Duration kMaxGateTimeout = absl::Hours(24);

std::string ToString(beast::string_view view) { return std::string(view.data(), view.size()); }

}  // namespace

struct TestHttpServer::Io {
  asio::io_context context;
  tcp::acceptor acceptor{context};
};

// One accepted socket, shared by its connection thread (which does all I/O on it) and Stop()
// (which may only interrupt it).
class TestHttpServer::Connection {
 public:
  explicit Connection(tcp::socket socket) : socket_(std::move(socket)) {}

  tcp::socket& socket() { return socket_; }

  // Connection thread: closes the socket (a FIN to the peer) if still open.
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    closed_ = true;
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  // Any thread: makes blocked reads and writes on the socket return. shutdown(2) on the raw
  // descriptor is safe while the connection thread is inside a call on it.
  void Interrupt() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_) ::shutdown(socket_.native_handle(), SHUT_RDWR);
  }

  std::atomic<bool> finished{false};

 private:
  std::mutex mu_;
  tcp::socket socket_;
  bool closed_ = false;  // guarded by mu_
};

namespace {

// A request as read off the wire, and whether the client wants the connection kept.
struct ReadResult {
  TestHttpServer::Request request;
  bool keep_alive = false;
};

std::optional<ReadResult> ReadRequest(tcp::socket& socket, beast::flat_buffer& buffer) {
  http::request_parser<http::string_body> parser;
  parser.body_limit(kMaxRequestBodyBytes);
  parser.header_limit(kMaxRequestHeaderBytes);
  beast::error_code error;
  http::read_header(socket, buffer, parser, error);
  if (error) return std::nullopt;
  if (absl::EqualsIgnoreCase(ToString(parser.get()[http::field::expect]), "100-continue")) {
    http::response<http::empty_body> proceed{http::status::continue_, 11};
    http::write(socket, proceed, error);
    if (error) return std::nullopt;
  }
  http::read(socket, buffer, parser, error);
  if (error) return std::nullopt;

  http::request<http::string_body> message = parser.release();
  ReadResult result;
  result.request.method = ToString(message.method_string());
  result.request.target = ToString(message.target());
  for (const auto& field : message) {
    result.request.headers.emplace_back(ToString(field.name_string()), ToString(field.value()));
  }
  result.request.body = std::move(message.body());
  result.keep_alive = message.keep_alive();
  return result;
}

// Writes a whole response; true if the connection may serve another request.
bool WriteResponse(tcp::socket& socket, const TestHttpServer::Response& response,
                   bool keep_alive) {
  http::response<http::string_body> message;
  message.version(11);
  message.result(static_cast<unsigned>(response.status));
  message.keep_alive(keep_alive);
  for (const auto& [name, value] : response.headers) message.insert(name, value);
  message.body() = response.body;
  message.prepare_payload();
  beast::error_code error;
  http::write(socket, message, error);
  return !error && message.keep_alive();
}

class ChunkedStreamWriter : public TestHttpServer::StreamWriter {
 public:
  using CloseFn = std::function<void()>;

  ChunkedStreamWriter(tcp::socket& socket, bool keep_alive, CloseFn close)
      : socket_(socket), keep_alive_(keep_alive), close_(std::move(close)) {}

  void SetHead(int status, TestHttpServer::Headers headers) override {
    if (head_sent_) return;
    status_ = status;
    headers_ = std::move(headers);
  }

  bool Write(absl::string_view data) override {
    if (!SendHead()) return false;
    if (data.empty()) return true;
    beast::error_code error;
    asio::write(socket_, http::make_chunk(asio::const_buffer(data.data(), data.size())), error);
    if (error) failed_ = true;
    return !failed_;
  }

  void Abort() override {
    failed_ = true;
    close_();
  }

  // After the handler returns: ends the body. True if the connection may serve another request.
  bool Finish() {
    if (!SendHead()) return false;
    beast::error_code error;
    asio::write(socket_, http::make_chunk_last(), error);
    return !error && keep_alive_;
  }

 private:
  bool SendHead() {
    if (failed_) return false;
    if (head_sent_) return true;
    head_sent_ = true;
    http::response<http::empty_body> head;
    head.version(11);
    head.result(static_cast<unsigned>(status_));
    head.keep_alive(keep_alive_);
    for (const auto& [name, value] : headers_) head.insert(name, value);
    head.chunked(true);
    keep_alive_ = head.keep_alive();
    http::response_serializer<http::empty_body> serializer{head};
    beast::error_code error;
    http::write_header(socket_, serializer, error);
    if (error) failed_ = true;
    return !failed_;
  }

  tcp::socket& socket_;
  bool keep_alive_;
  CloseFn close_;
  int status_ = 200;
  TestHttpServer::Headers headers_;
  bool head_sent_ = false;
  bool failed_ = false;
};

}  // namespace

std::string TestHttpServer::Request::path() const { return target.substr(0, target.find('?')); }

std::optional<std::string> TestHttpServer::Request::Header(absl::string_view name) const {
  for (const auto& [header_name, value] : headers) {
    if (absl::EqualsIgnoreCase(header_name, name)) return value;
  }
  return std::nullopt;
}

TestHttpServer::TestHttpServer() : io_(std::make_unique<Io>()) {}

TestHttpServer::~TestHttpServer() { Stop(); }

absl::StatusOr<std::unique_ptr<TestHttpServer>> TestHttpServer::Create() {
  std::unique_ptr<TestHttpServer> server(new TestHttpServer());
  tcp::acceptor& acceptor = server->io_->acceptor;
  const tcp::endpoint endpoint(asio::ip::make_address_v4("127.0.0.1"), 0);
  beast::error_code error;
  acceptor.open(endpoint.protocol(), error);
  if (!error) acceptor.set_option(asio::socket_base::reuse_address(true), error);
  if (!error) acceptor.bind(endpoint, error);
  if (!error) acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (!error) server->port_ = acceptor.local_endpoint(error).port();
  if (error) {
    return absl::UnavailableError(absl::StrCat("listen on 127.0.0.1:0: ", error.message()));
  }
  server->AcceptNext();
  server->acceptor_thread_ = std::thread([raw = server.get()] { raw->io_->context.run(); });
  return server;
}

void TestHttpServer::Handle(const std::string& method, const std::string& path,
                            Handler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  routes_[{method, path}] = std::move(handler);
}

void TestHttpServer::HandleStream(const std::string& path, StreamHandler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  stream_routes_[path] = std::move(handler);
}

void TestHttpServer::OpenGate(const std::string& name) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    open_gates_.insert(name);
  }
  gate_opened_.notify_all();
}

bool TestHttpServer::AwaitGate(const std::string& name, absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  gate_opened_.wait_for(lock, absl::ToChronoMilliseconds(std::min(timeout, kMaxGateTimeout)),
                        [&] { return stopping_ || open_gates_.count(name) > 0; });
  return !stopping_ && open_gates_.count(name) > 0;
}

std::string TestHttpServer::url(absl::string_view path) const {
  return absl::StrCat("http://127.0.0.1:", port_, path);
}

void TestHttpServer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  gate_opened_.notify_all();
  asio::post(io_->context, [this] {
    beast::error_code ignored;
    io_->acceptor.close(ignored);  // the pending accept completes with operation_aborted
  });
  if (acceptor_thread_.joinable()) acceptor_thread_.join();
  std::vector<Worker> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    workers.swap(workers_);
  }
  for (Worker& worker : workers) worker.connection->Interrupt();
  for (Worker& worker : workers) worker.thread.join();
}

void TestHttpServer::AcceptNext() {
  io_->acceptor.async_accept([this](beast::error_code error, tcp::socket socket) {
    if (error) return;  // closed by Stop()
    OnAccepted(std::make_shared<Connection>(std::move(socket)));
    AcceptNext();
  });
}

void TestHttpServer::OnAccepted(std::shared_ptr<Connection> connection) {
  beast::error_code ignored;
  connection->socket().set_option(tcp::no_delay(true), ignored);  // each chunk leaves at once
  connections_accepted_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  ReapFinishedWorkersLocked();
  if (stopping_) return;  // the socket closes with `connection`
  std::thread thread([this, connection] {
    Serve(*connection);
    connection->finished.store(true);
  });
  workers_.push_back(Worker{std::move(connection), std::move(thread)});
}

void TestHttpServer::ReapFinishedWorkersLocked() {
  auto finished = std::partition(workers_.begin(), workers_.end(), [](const Worker& worker) {
    return !worker.connection->finished.load();
  });
  for (auto it = finished; it != workers_.end(); ++it) it->thread.join();
  workers_.erase(finished, workers_.end());
}

void TestHttpServer::Serve(Connection& connection) {
  beast::flat_buffer buffer;
  while (true) {
    std::optional<ReadResult> read = ReadRequest(connection.socket(), buffer);
    if (!read.has_value()) break;
    requests_received_.fetch_add(1);
    if (!Dispatch(connection, read->request, read->keep_alive)) break;
  }
  connection.Close();
}

bool TestHttpServer::Dispatch(Connection& connection, const Request& request, bool keep_alive) {
  Handler handler;
  StreamHandler stream_handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto route = routes_.find({request.method, request.path()});
    if (route != routes_.end()) {
      handler = route->second;
    } else if (auto stream = stream_routes_.find(request.path()); stream != stream_routes_.end()) {
      stream_handler = stream->second;
    }
  }
  // A failed assertion (or any throw) inside a handler must not take the process down with it.
  std::string failure;
  try {
    if (stream_handler) {
      ChunkedStreamWriter writer(connection.socket(), keep_alive, [&] { connection.Close(); });
      stream_handler(request, writer);
      return writer.Finish();
    }
    const Response response =
        handler ? handler(request)
                : Response{404, {}, absl::StrCat("no route for ", request.method, " ",
                                                 request.path())};
    return WriteResponse(connection.socket(), response, keep_alive);
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  // A stream's head may be out already: then only closing is left.
  if (!stream_handler) {
    WriteResponse(connection.socket(), Response{500, {}, "handler threw: " + failure}, false);
  }
  return false;
}

}  // namespace kvbench::testing
