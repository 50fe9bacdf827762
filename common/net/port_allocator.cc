#include "common/net/port_allocator.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kvbench {

// Attempts before giving up on finding a port not handed out yet.
constexpr int kMaxAllocateAttempts = 64;

absl::StatusOr<int> BindEphemeralPort(const std::string& host) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  if (::inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("\"", host, "\" is not an IPv4 address"));
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::UnavailableError(absl::StrCat("socket: ", std::strerror(errno)));
  socklen_t length = sizeof(address);
  const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
                     ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  const int error = errno;
  ::close(fd);
  if (!bound) {
    return absl::UnavailableError(
        absl::StrCat("cannot bind a port on ", host, ": ", std::strerror(error)));
  }
  return static_cast<int>(ntohs(address.sin_port));
}

absl::StatusOr<int> PortAllocator::Allocate(const std::string& host) {
  for (int attempt = 0; attempt < kMaxAllocateAttempts; ++attempt) {
    absl::StatusOr<int> port = BindEphemeralPort(host);
    if (!port.ok()) return port;
    std::lock_guard<std::mutex> lock(mu_);
    if (handed_out_.insert(*port).second) return port;
  }
  return absl::UnavailableError(
      absl::StrCat("no fresh port on ", host, " after ", kMaxAllocateAttempts, " attempts"));
}

}  // namespace kvbench
