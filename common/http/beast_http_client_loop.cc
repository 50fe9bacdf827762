#include "common/http/beast_http_client_loop.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <cerrno>
#include <exception>
#include <utility>

#include "common/http/beast_http_client_exchange.h"
#include "common/log/logging.h"

namespace kvbench::beast_http_client_internal {
namespace {

thread_local BeastHttpClientLoop* t_current_loop = nullptr;

}  // namespace

std::optional<std::vector<boost::asio::ip::tcp::endpoint>> EndpointCache::Find(
    const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = endpoints_.find(key);
  if (it == endpoints_.end()) return std::nullopt;
  return it->second;
}

void EndpointCache::Insert(const std::string& key,
                           std::vector<boost::asio::ip::tcp::endpoint> endpoints) {
  std::lock_guard<std::mutex> lock(mu_);
  endpoints_.emplace(key, std::move(endpoints));
}

bool BeastHttpClientConnection::IdleDead() {
  char byte = 0;
  const ssize_t got = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (got >= 0) return true;  // 0: the peer closed; >0: bytes before any request was sent
  return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

BeastHttpClientLoop::BeastHttpClientLoop(const void* owner, EndpointCache* endpoints)
    : owner_(owner),
      endpoints_(endpoints),
      work_(boost::asio::make_work_guard(io_)),
      resolver_(io_),
      body_buffer_(new char[kBodyBufferBytes]) {}

BeastHttpClientLoop* BeastHttpClientLoop::Current() { return t_current_loop; }

void BeastHttpClientLoop::Run() {
  t_current_loop = this;
  while (true) {
    try {
      io_.run();
      break;
    } catch (const std::exception& e) {  // only an observer could throw: a bug of the caller's
      KV_LOG(ERROR) << "HTTP client I/O thread caught what=" << e.what();
    }
  }
  t_current_loop = nullptr;
}

void BeastHttpClientLoop::Stop() {
  stopping_ = true;
  // Cancelling runs observers, which may Start (refused) but never reach active_ again.
  auto active = std::move(active_);
  active_.clear();
  for (auto& [raw, exchange] : active) exchange->Cancel("the client shut down");
  idle_.clear();  // closes the sockets; nothing is pending on an idle connection
  resolver_.cancel();
  work_.reset();
}

std::unique_ptr<BeastHttpClientConnection> BeastHttpClientLoop::TakeIdle(const std::string& key) {
  auto it = idle_.find(key);
  if (it == idle_.end()) return nullptr;
  std::vector<std::unique_ptr<BeastHttpClientConnection>>& idle = it->second;
  while (!idle.empty()) {
    std::unique_ptr<BeastHttpClientConnection> connection = std::move(idle.back());
    idle.pop_back();
    if (std::chrono::steady_clock::now() - connection->parked_at < kIdleCheckAfter ||
        !connection->IdleDead()) {
      return connection;
    }
  }
  return nullptr;
}

void BeastHttpClientLoop::ParkIdle(const std::string& key,
                                   std::unique_ptr<BeastHttpClientConnection> connection) {
  if (stopping_) return;
  std::vector<std::unique_ptr<BeastHttpClientConnection>>& idle = idle_[key];
  if (idle.size() >= kMaxIdlePerHost) return;
  connection->parked_at = std::chrono::steady_clock::now();
  idle.push_back(std::move(connection));
}

void BeastHttpClientLoop::Add(std::shared_ptr<BeastHttpClientExchange> exchange) {
  BeastHttpClientExchange* raw = exchange.get();
  active_.emplace(raw, std::move(exchange));
}

void BeastHttpClientLoop::Remove(BeastHttpClientExchange* exchange) { active_.erase(exchange); }

}  // namespace kvbench::beast_http_client_internal
