#include "common/http/beast_http_server.h"

#include <exception>
#include <string>
#include <utility>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/socket_base.hpp>

#include "absl/strings/str_cat.h"
#include "common/log/logging.h"

namespace kvbench {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = boost::asio::ip::tcp;

// host:port, with an IPv6 host in brackets.
std::string Address(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) return absl::StrCat("[", host, "]:", port);
  return absl::StrCat(host, ":", port);
}

}  // namespace

BeastHttpServer::BeastHttpServer(Options options)
    : options_(std::move(options)),
      gate_(std::make_shared<HttpServerGate>()),
      io_context_(options_.io_threads > 0 ? options_.io_threads : 1),
      accept_strand_(asio::make_strand(io_context_)),
      acceptor_(accept_strand_),
      accept_retry_timer_(accept_strand_) {
  context_.router = &router_;
  context_.gate = gate_;
  context_.max_body_bytes = options_.max_body_bytes;
  context_.on_closed = [this](uint64_t id) { OnSessionClosed(id); };
}

BeastHttpServer::~BeastHttpServer() { Stop(); }

void BeastHttpServer::Handle(const std::string& method, const std::string& path,
                             HttpHandler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  KV_CHECK(state_ == State::kNew) << "HttpServer::Handle after Start path=" << path;
  router_.Handle(method, path, std::move(handler));
}

void BeastHttpServer::SetFallback(HttpHandler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  KV_CHECK(state_ == State::kNew) << "HttpServer::SetFallback after Start";
  router_.SetFallback(std::move(handler));
}

absl::Status BeastHttpServer::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != State::kNew) {
    return absl::FailedPreconditionError(
        absl::StrCat("HTTP server on ", Address(options_.host, options_.port),
                     state_ == State::kRunning ? " already started" : " was stopped"));
  }
  absl::StatusOr<tcp::endpoint> endpoint = ResolveEndpoint();
  if (!endpoint.ok()) return endpoint.status();
  if (absl::Status listening = Listen(*endpoint); !listening.ok()) return listening;
  state_ = State::kRunning;
  Accept();
  const int threads = options_.io_threads > 0 ? options_.io_threads : 1;
  threads_.reserve(static_cast<size_t>(threads));
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { RunIoThread(); });
  return absl::OkStatus();
}

absl::StatusOr<tcp::endpoint> BeastHttpServer::ResolveEndpoint() {
  beast::error_code error;
  const asio::ip::address address = asio::ip::make_address(options_.host, error);
  if (!error) return tcp::endpoint(address, static_cast<uint16_t>(options_.port));
  tcp::resolver resolver(io_context_);
  const auto results = resolver.resolve(options_.host, std::to_string(options_.port),
                                        tcp::resolver::numeric_service, error);
  if (error || results.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot resolve HTTP server address ", Address(options_.host, options_.port),
                     ": ", error ? error.message() : "no address"));
  }
  return results.begin()->endpoint();
}

absl::Status BeastHttpServer::Listen(const tcp::endpoint& endpoint) {
  beast::error_code error;
  acceptor_.open(endpoint.protocol(), error);
  if (!error) acceptor_.set_option(asio::socket_base::reuse_address(true), error);
  if (!error) acceptor_.bind(endpoint, error);
  if (!error) acceptor_.listen(asio::socket_base::max_listen_connections, error);
  if (!error) port_.store(acceptor_.local_endpoint(error).port());
  if (error) {
    beast::error_code ignored;
    acceptor_.close(ignored);
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", Address(options_.host, options_.port), ": ", error.message()));
  }
  return absl::OkStatus();
}

void BeastHttpServer::Stop() {
  std::unordered_map<uint64_t, std::shared_ptr<HttpServerSession>> sessions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const State previous = state_;
    state_ = State::kStopped;
    if (previous != State::kRunning) return;
    sessions.swap(sessions_);
  }
  for (const std::thread& thread : threads_) {
    KV_CHECK(thread.get_id() != std::this_thread::get_id()) << "HttpServer::Stop from a handler";
  }
  gate_->Close();  // responders held elsewhere are no-ops from here on
  asio::post(accept_strand_, [this] {
    beast::error_code ignored;
    acceptor_.close(ignored);
    accept_retry_timer_.cancel();
  });
  for (auto& [id, session] : sessions) session->Close();
  sessions.clear();
  // With the acceptor and every socket closed, the I/O threads run out of work and return.
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

void BeastHttpServer::RunIoThread() {
  while (true) {
    try {
      io_context_.run();
      return;
    } catch (const std::exception& e) {
      KV_LOG(ERROR) << "HTTP server I/O thread caught what=" << e.what();
    }
  }
}

void BeastHttpServer::Accept() {
  acceptor_.async_accept(asio::make_strand(io_context_),
                         [this](beast::error_code error, tcp::socket socket) {
                           OnAccept(error, std::move(socket));
                         });
}

void BeastHttpServer::OnAccept(beast::error_code error, tcp::socket socket) {
  if (!acceptor_.is_open()) return;  // Stop() closed it
  if (error) {
    KV_LOG_EVERY_N_SEC(WARNING, 10) << "HTTP server accept failed address="
                                    << Address(options_.host, port()) << " error="
                                    << error.message();
    accept_retry_timer_.expires_after(absl::ToChronoMilliseconds(kAcceptRetryDelay));
    accept_retry_timer_.async_wait([this](beast::error_code wait_error) {
      if (!wait_error && acceptor_.is_open()) Accept();
    });
    return;
  }
  beast::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);  // streamed chunks must not wait for Nagle
  std::shared_ptr<HttpServerSession> session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ != State::kRunning) return;  // the socket closes as it goes
    const uint64_t id = next_session_id_++;
    session = std::make_shared<HttpServerSession>(id, std::move(socket), &context_);
    sessions_.emplace(id, session);
  }
  session->Start();
  Accept();
}

void BeastHttpServer::OnSessionClosed(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.erase(id);
}

}  // namespace kvbench
