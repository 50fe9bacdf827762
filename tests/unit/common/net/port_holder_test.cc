// DescribeTcpListener (common/net): who listens on a port, read from /proc, for start-up errors
// that must say who holds it. A real listening socket of this process.

#include "common/net/port_holder.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"

namespace kvbench::testing {
namespace {

std::string OwnComm() {
  std::ifstream in("/proc/self/comm");
  std::string comm;
  std::getline(in, comm);
  return comm;
}

TEST_CASE("DescribeTcpListener names the process listening on a port, and nobody otherwise",
          "[port_holder]") {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  socklen_t length = sizeof(address);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  const int port = ntohs(address.sin_port);

  // Bound but not listening: nobody listens yet.
  CHECK(DescribeTcpListener(port).empty());
  REQUIRE(::listen(fd, 1) == 0);
  CHECK(DescribeTcpListener(port) == absl::StrCat("pid ", ::getpid(), " (", OwnComm(), ")"));
  ::close(fd);
  CHECK(DescribeTcpListener(port).empty());
}

}  // namespace
}  // namespace kvbench::testing
