// BeastHttpClient against a scripted raw server on loopback, for what TestHttpServer cannot do:
// close a kept-alive connection at a chosen moment without telling the client first.

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/http/beast_http_client.h"
#include "tests/support/http_client_test_helpers.h"
#include "tests/support/recording_http_observer.h"
#include "tests/support/wait_for.h"

namespace kvbench {
namespace {

using testing::AsyncGet;
using testing::kHttpTestTimeout;
using testing::WaitFor;
using Recorder = testing::RecordingHttpObserver;

std::unique_ptr<BeastHttpClient> MakeSingleThreadClient() {
  return testing::RequireValue(BeastHttpClient::Create(BeastHttpClient::Options{}));
}

// A loopback server that runs a script on each connection it accepts, one connection after
// another, with plain sockets: for tests where the bytes and the moment of a close are the point.
class ScriptedServer {
 public:
  // Runs on the server's thread with the accepted descriptor and its index (0, 1...); the
  // connection is closed when it returns.
  using Script = std::function<void(int fd, int index)>;

  explicit ScriptedServer(Script script) : script_(std::move(script)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(listen_fd_ >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    REQUIRE(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
    REQUIRE(::listen(listen_fd_, 16) == 0);
    REQUIRE(::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedServer() {
    ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept(2) on Linux
    thread_.join();
    ::close(listen_fd_);
  }

  std::string url(absl::string_view path) const {
    return absl::StrCat("http://127.0.0.1:", port_, path);
  }
  int accepted() const { return accepted_.load(); }
  // Connections whose script returned (and that were closed).
  int closed() const { return closed_.load(); }

  // Reads up to the end of a request head (the tests send no bodies); false on EOF or timeout.
  static bool ReadHead(int fd) {
    std::string data;
    char buffer[4096];
    while (data.find("\r\n\r\n") == std::string::npos) {
      pollfd poll_fd{fd, POLLIN, 0};
      if (::poll(&poll_fd, 1, static_cast<int>(absl::ToInt64Milliseconds(kHttpTestTimeout))) <= 0) {
        return false;
      }
      const ssize_t got = ::recv(fd, buffer, sizeof(buffer), 0);
      if (got <= 0) return false;
      data.append(buffer, static_cast<size_t>(got));
    }
    return true;
  }
  static void Send(int fd, absl::string_view data) {
    while (!data.empty()) {
      const ssize_t sent = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (sent <= 0) return;
      data.remove_prefix(static_cast<size_t>(sent));
    }
  }

 private:
  void Serve() {
    for (int index = 0;; ++index) {
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;
      accepted_.fetch_add(1);
      script_(fd, index);
      ::close(fd);
      closed_.fetch_add(1);
    }
  }

  const Script script_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::atomic<int> closed_{0};
  std::thread thread_;
};

constexpr absl::string_view kFirstResponse = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst";
constexpr absl::string_view kSecondResponse = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond";

TEST_CASE("BeastHttpClient: a kept-alive connection the server closed is replaced transparently",
          "[http]") {
  // Connection 0 answers once and then closes: at once (idle), or only when the next request
  // arrives (the race of a server's keep-alive timeout). Connection 1 answers the retry.
  const bool close_when_idle = GENERATE(true, false);
  INFO((close_when_idle ? "closed while idle" : "closed as the next request arrived"));
  ScriptedServer server([close_when_idle](int fd, int index) {
    if (!ScriptedServer::ReadHead(fd)) return;
    if (index > 0) return ScriptedServer::Send(fd, kSecondResponse);
    ScriptedServer::Send(fd, kFirstResponse);
    if (!close_when_idle) ScriptedServer::ReadHead(fd);
  });
  auto client = MakeSingleThreadClient();

  Recorder first;
  client->Start(AsyncGet(server.url("/a")), &first);
  REQUIRE(first.Wait());
  REQUIRE(first.status().ok());
  CHECK(first.body() == "first");
  if (close_when_idle) REQUIRE(WaitFor([&] { return server.closed() == 1; }));

  Recorder second;
  client->Start(AsyncGet(server.url("/b")), &second);
  REQUIRE(second.Wait());

  CHECK(second.status().ok());
  CHECK(second.events() == "HBC");
  CHECK(second.body() == "second");
  CHECK(server.accepted() == 2);
}

TEST_CASE("BeastHttpClient: a new connection closed before any response is UNAVAILABLE", "[http]") {
  ScriptedServer server([](int fd, int) { ScriptedServer::ReadHead(fd); });
  auto client = MakeSingleThreadClient();
  Recorder recorder;

  client->Start(AsyncGet(server.url("/x")), &recorder);

  REQUIRE(recorder.Wait());
  CHECK(absl::IsUnavailable(recorder.status()));
  CHECK(server.accepted() == 1);  // not retried: the connection was not a reused one
}

TEST_CASE("BeastHttpClient: a body delimited by the connection's end completes OK", "[http]") {
  ScriptedServer server([](int fd, int) {
    if (!ScriptedServer::ReadHead(fd)) return;
    ScriptedServer::Send(fd, "HTTP/1.1 200 OK\r\n\r\nuntil the end");
  });
  auto client = MakeSingleThreadClient();
  Recorder recorder;

  client->Start(AsyncGet(server.url("/x")), &recorder);

  REQUIRE(recorder.Wait());
  CHECK(recorder.status().ok());
  CHECK(recorder.body() == "until the end");
}

}  // namespace
}  // namespace kvbench
