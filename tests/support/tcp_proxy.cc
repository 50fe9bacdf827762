#include "tests/support/tcp_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kvbench::testing {
namespace {

sockaddr_in Loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  return address;
}

// Copies what `from` has into `to`; false at EOF or on an error.
bool Pump(int from, int to) {
  char buffer[16384];
  ssize_t n = ::read(from, buffer, sizeof(buffer));
  if (n <= 0) return false;
  for (ssize_t sent = 0; sent < n;) {
    ssize_t w = ::send(to, buffer + sent, static_cast<size_t>(n - sent), MSG_NOSIGNAL);
    if (w <= 0) return false;
    sent += w;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<TcpProxy>> TcpProxy::Create(int target_port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  sockaddr_in address = Loopback(0);
  socklen_t length = sizeof(address);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(fd, 128) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    return absl::InternalError(absl::StrCat("bind/listen: ", std::strerror(errno)));
  }
  return std::unique_ptr<TcpProxy>(new TcpProxy(fd, ntohs(address.sin_port), target_port));
}

TcpProxy::TcpProxy(int listen_fd, int port, int target_port)
    : listen_fd_(listen_fd), port_(port), target_port_(target_port) {
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

TcpProxy::~TcpProxy() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  CutAll();
  acceptor_.join();
  for (std::thread& relay : relays_) relay.join();
  ::close(listen_fd_);
}

void TcpProxy::CutAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (int fd : open_fds_) {
    // A reset, as a dropped network path looks to the peers.
    linger hard{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
    ::shutdown(fd, SHUT_RDWR);
  }
}

void TcpProxy::AcceptLoop() {
  while (!stopping_) {
    int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (refusing_) {
      ::close(client);
      continue;
    }
    int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in target = Loopback(target_port_);
    if (upstream < 0 ||
        ::connect(upstream, reinterpret_cast<sockaddr*>(&target), sizeof(target)) != 0) {
      if (upstream >= 0) ::close(upstream);
      ::close(client);
      continue;
    }
    int one = 1;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ::setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ++accepted_;
    std::lock_guard<std::mutex> lock(mu_);
    open_fds_.insert(client);
    open_fds_.insert(upstream);
    relays_.emplace_back([this, client, upstream] { Relay(client, upstream); });
  }
}

void TcpProxy::Relay(int client_fd, int upstream_fd) {
  pollfd fds[2] = {{client_fd, POLLIN, 0}, {upstream_fd, POLLIN, 0}};
  while (true) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) && !Pump(client_fd, upstream_fd)) break;
    if ((fds[1].revents & (POLLIN | POLLHUP | POLLERR)) && !Pump(upstream_fd, client_fd)) break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (int fd : {client_fd, upstream_fd}) {
    linger hard{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
    open_fds_.erase(fd);
    ::close(fd);
  }
}

}  // namespace kvbench::testing
