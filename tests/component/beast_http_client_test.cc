// BeastHttpClient against real HTTP/1.1 servers on loopback: TestHttpServer, and a scripted raw
// server where the timing of a close is the point.

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/http/beast_http_client.h"
#include "tests/support/test_http_server.h"
#include "tests/support/unused_port.h"
#include "tests/support/wait_for.h"

namespace kvbench {
namespace {

using testing::TestHttpServer;
using testing::WaitFor;
using Request = TestHttpServer::Request;
using Response = TestHttpServer::Response;
using StreamWriter = TestHttpServer::StreamWriter;

// Short, so the timeout test is quick; far longer than any loopback exchange.
constexpr absl::Duration kShortTimeout = absl::Milliseconds(200);
// Bounds every other exchange and wait, so a broken client fails a test instead of hanging it.
constexpr absl::Duration kTestTimeout = absl::Seconds(10);

// Records one exchange's callbacks (or several, one after another) for the test thread.
class Recorder final : public AsyncHttpObserver {
 public:
  // Runs on the I/O thread after each OnBody with the body so far; returns OnBody's answer.
  using BodyHook = std::function<bool(const std::string& body)>;

  explicit Recorder(BodyHook hook = nullptr) : hook_(std::move(hook)) {}

  void OnHeaders(int http_status, MonotonicTime arrival) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_ += 'H';
    http_status_ = http_status;
    stamps_.push_back(arrival);
  }
  bool OnBody(absl::string_view bytes, MonotonicTime arrival) override {
    std::string body;
    {
      std::lock_guard<std::mutex> lock(mu_);
      events_ += 'B';
      body_.append(bytes.data(), bytes.size());
      stamps_.push_back(arrival);
      body = body_;
    }
    return hook_ ? hook_(body) : true;
  }
  void OnComplete(absl::Status status, MonotonicTime end) override {
    // Notified under the lock: once Wait() returns, this thread no longer touches the recorder.
    std::lock_guard<std::mutex> lock(mu_);
    events_ += 'C';
    status_ = std::move(status);
    stamps_.push_back(end);
    ++completions_;
    done_.notify_all();
  }

  // True once OnComplete came (within `timeout`).
  bool Wait(absl::Duration timeout = kTestTimeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return done_.wait_for(lock, absl::ToChronoMilliseconds(timeout),
                          [&] { return completions_ > 0; });
  }
  bool done() const {
    return Locked([&] { return completions_ > 0; });
  }
  int completions() const {
    return Locked([&] { return completions_; });
  }
  absl::Status status() const {
    return Locked([&] { return status_; });
  }
  int http_status() const {
    return Locked([&] { return http_status_; });
  }
  std::string body() const {
    return Locked([&] { return body_; });
  }
  // 'H' per OnHeaders, 'B' per OnBody, 'C' per OnComplete, in order.
  std::string events() const {
    return Locked([&] { return events_; });
  }
  bool StampsNonDecreasing() const {
    return Locked([&] { return std::is_sorted(stamps_.begin(), stamps_.end()); });
  }

 private:
  template <typename F>
  auto Locked(F f) const -> decltype(f()) {
    std::lock_guard<std::mutex> lock(mu_);
    return f();
  }

  const BodyHook hook_;
  mutable std::mutex mu_;
  std::condition_variable done_;
  std::string events_;
  int http_status_ = 0;
  std::string body_;
  std::vector<MonotonicTime> stamps_;
  absl::Status status_;
  int completions_ = 0;
};

std::unique_ptr<TestHttpServer> StartServer() {
  absl::StatusOr<std::unique_ptr<TestHttpServer>> server = TestHttpServer::Create();
  REQUIRE(server.ok());
  return *std::move(server);
}

std::unique_ptr<BeastHttpClient> MakeClient(int io_threads = 1) {
  BeastHttpClient::Options options;
  options.io_threads = io_threads;
  absl::StatusOr<std::unique_ptr<BeastHttpClient>> client = BeastHttpClient::Create(options);
  REQUIRE(client.ok());
  return *std::move(client);
}

AsyncHttpRequest Get(const std::string& url) {
  AsyncHttpRequest request;
  request.method = "GET";
  request.url = url;
  request.timeout = kTestTimeout;
  return request;
}

TEST_CASE("BeastHttpClient: streamed chunks arrive one by one, in order, stamped", "[http]") {
  constexpr int kChunks = 5;
  auto server = StartServer();
  TestHttpServer* raw_server = server.get();
  server->HandleStream("/v1/completions", [raw_server](const Request&, StreamWriter& writer) {
    writer.SetHead(200, {{"Content-Type", "text/event-stream"}});
    for (int i = 0; i < kChunks; ++i) {
      if (!writer.Write(absl::StrCat("data: ", i, "\n\n"))) return;
      // The next chunk only once the client reported this one: a client that held chunks back
      // would never see the rest.
      if (!raw_server->AwaitGate(absl::StrCat("got-", i), absl::Seconds(5))) return;
    }
  });
  Recorder recorder([raw_server](const std::string& body) {
    int events = 0;
    for (size_t at = body.find("\n\n"); at != std::string::npos; at = body.find("\n\n", at + 2)) {
      ++events;
    }
    if (events > 0) raw_server->OpenGate(absl::StrCat("got-", events - 1));
    return true;
  });
  auto client = MakeClient();
  AsyncHttpRequest request = Get(server->url("/v1/completions"));
  request.method = "POST";
  request.body = "{}";

  client->Start(request, &recorder);

  REQUIRE(recorder.Wait());
  REQUIRE(recorder.status().ok());
  CHECK(recorder.http_status() == 200);
  CHECK(recorder.body() == "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n");
  const std::string events = recorder.events();
  CHECK(events.front() == 'H');
  CHECK(events.back() == 'C');
  CHECK(std::count(events.begin(), events.end(), 'B') >= kChunks);
  CHECK(recorder.StampsNonDecreasing());
  CHECK(WaitFor([&] { return client->in_flight() == 0; }));
}

TEST_CASE("BeastHttpClient: an HTTP error status is a response, completed OK", "[http]") {
  auto server = StartServer();
  auto client = MakeClient();
  Recorder recorder;

  client->Start(Get(server->url("/nothing-here")), &recorder);

  REQUIRE(recorder.Wait());
  CHECK(recorder.status().ok());
  CHECK(recorder.http_status() == 404);
  CHECK(absl::StrContains(recorder.body(), "no route"));
  CHECK(recorder.completions() == 1);
}

TEST_CASE("BeastHttpClient: a POST delivers its body and headers exactly", "[http]") {
  std::mutex mu;
  std::vector<Request> seen;
  auto server = StartServer();
  server->Handle("POST", "/v1/chat/completions", [&](const Request& request) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(request);
    return Response{200, {}, "ok"};
  });
  auto client = MakeClient();
  std::string body = R"({"messages":[{"role":"user","content":")";
  for (int i = 0; body.size() < (1 << 20); ++i) body += static_cast<char>('a' + i % 26);
  body += R"("}]})";
  AsyncHttpRequest request = Get(server->url("/v1/chat/completions?stream=1"));
  request.method = "POST";
  request.headers = {{"Content-Type", "application/json"}, {"x-user-id", "user-17"}};
  request.body = body;
  Recorder recorder;

  client->Start(request, &recorder);

  REQUIRE(recorder.Wait());
  REQUIRE(recorder.status().ok());
  CHECK(recorder.body() == "ok");
  std::lock_guard<std::mutex> lock(mu);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].target == "/v1/chat/completions?stream=1");
  CHECK(seen[0].body == body);
  CHECK(seen[0].Header("x-user-id") == "user-17");
  CHECK(seen[0].Header("Content-Type") == "application/json");
  CHECK(seen[0].Header("Host") == absl::StrCat("127.0.0.1:", server->port()));
}

TEST_CASE("BeastHttpClient: a large response body arrives intact", "[http]") {
  std::string big(4 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
  auto server = StartServer();
  server->Handle("GET", "/big", [&big](const Request&) { return Response{200, {}, big}; });
  auto client = MakeClient();
  Recorder recorder;

  client->Start(Get(server->url("/big")), &recorder);

  REQUIRE(recorder.Wait());
  REQUIRE(recorder.status().ok());
  CHECK(recorder.body() == big);
}

TEST_CASE("BeastHttpClient: 100 concurrent exchanges complete on kept-alive connections",
          "[http]") {
  constexpr int kConcurrent = 100;
  auto server = StartServer();
  server->Handle("GET", "/echo", [](const Request& request) {
    return Response{200, {}, request.target};
  });
  auto client = MakeClient(/*io_threads=*/2);

  for (int wave = 0; wave < 2; ++wave) {
    std::vector<std::unique_ptr<Recorder>> recorders;
    for (int i = 0; i < kConcurrent; ++i) {
      recorders.push_back(std::make_unique<Recorder>());
      client->Start(Get(server->url(absl::StrCat("/echo?w=", wave, "&i=", i))),
                    recorders.back().get());
    }
    for (int i = 0; i < kConcurrent; ++i) {
      INFO("wave " << wave << " exchange " << i);
      REQUIRE(recorders[i]->Wait());
      CHECK(recorders[i]->status().ok());
      CHECK(recorders[i]->body() == absl::StrCat("/echo?w=", wave, "&i=", i));
    }
    CHECK(WaitFor([&] { return client->in_flight() == 0; }));
  }

  CHECK(server->requests_received() == 2 * kConcurrent);
  // The second wave found the first wave's connections idle.
  CHECK(server->connections_accepted() <= kConcurrent);
}

// Starts its next request from OnComplete, `rounds` times in all.
class Chain final : public AsyncHttpObserver {
 public:
  Chain(AsyncHttpClient* client, AsyncHttpRequest request, int rounds)
      : client_(client), request_(std::move(request)), rounds_(rounds) {}

  void OnHeaders(int, MonotonicTime) override {}
  bool OnBody(absl::string_view bytes, MonotonicTime) override {
    body_.append(bytes.data(), bytes.size());
    return true;
  }
  void OnComplete(absl::Status status, MonotonicTime) override {
    bool again = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      bodies_.push_back(status.ok() ? body_ : status.ToString());
      body_.clear();
      again = static_cast<int>(bodies_.size()) < rounds_;
    }
    if (again) {
      client_->Start(request_, this);
    } else {
      std::lock_guard<std::mutex> lock(mu_);
      done_.notify_all();  // under the lock, as in Recorder
    }
  }

  std::vector<std::string> Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait_for(lock, absl::ToChronoMilliseconds(kTestTimeout),
                   [&] { return static_cast<int>(bodies_.size()) >= rounds_; });
    return bodies_;
  }

 private:
  AsyncHttpClient* const client_;
  const AsyncHttpRequest request_;
  const int rounds_;
  std::string body_;  // I/O thread only
  std::mutex mu_;
  std::condition_variable done_;
  std::vector<std::string> bodies_;  // guarded by mu_
};

TEST_CASE("BeastHttpClient: Start from OnComplete chains requests on one connection", "[http]") {
  constexpr int kRounds = 50;
  auto server = StartServer();
  server->Handle("POST", "/ping", [](const Request& request) {
    return Response{200, {}, "pong " + request.body};
  });
  auto client = MakeClient(/*io_threads=*/2);
  AsyncHttpRequest request = Get(server->url("/ping"));
  request.method = "POST";
  request.body = "round";
  Chain chain(client.get(), request, kRounds);

  client->Start(request, &chain);

  const std::vector<std::string> bodies = chain.Wait();
  REQUIRE(bodies.size() == kRounds);
  for (const std::string& body : bodies) CHECK(body == "pong round");
  CHECK(server->requests_received() == kRounds);
  CHECK(server->connections_accepted() == 1);
}

TEST_CASE("BeastHttpClient: connection refused is UNAVAILABLE", "[http]") {
  auto client = MakeClient();
  const std::string url = absl::StrCat("http://127.0.0.1:", testing::UnusedLoopbackPort(), "/x");
  Recorder recorder;

  client->Start(Get(url), &recorder);

  REQUIRE(recorder.Wait());
  CHECK(absl::IsUnavailable(recorder.status()));
  CHECK(absl::StrContains(recorder.status().message(), "GET " + url));
  CHECK(recorder.events() == "C");
}

TEST_CASE("BeastHttpClient: a stream cut short is UNAVAILABLE, never OK", "[http]") {
  auto server = StartServer();
  server->HandleStream("/cut", [](const Request&, StreamWriter& writer) {
    writer.Write("partial");
    writer.Abort();  // FIN without the terminating zero-length chunk
  });
  auto client = MakeClient();
  Recorder recorder;

  client->Start(Get(server->url("/cut")), &recorder);

  REQUIRE(recorder.Wait());
  CHECK(absl::IsUnavailable(recorder.status()));
  CHECK(recorder.body() == "partial");  // what came is delivered, then the error
}

TEST_CASE("BeastHttpClient: a server slower than the timeout is DEADLINE_EXCEEDED", "[http]") {
  auto server = StartServer();
  TestHttpServer* raw_server = server.get();
  server->Handle("GET", "/slow", [raw_server](const Request&) {
    raw_server->AwaitGate("release");
    return Response{200, {}, "late"};
  });
  auto client = MakeClient();
  AsyncHttpRequest request = Get(server->url("/slow"));
  request.timeout = kShortTimeout;
  Recorder recorder;

  client->Start(request, &recorder);
  const bool completed = recorder.Wait();
  server->OpenGate("release");  // lets the handler's thread finish

  REQUIRE(completed);
  CHECK(absl::IsDeadlineExceeded(recorder.status()));
  CHECK(absl::StrContains(recorder.status().message(), "/slow"));
  CHECK(WaitFor([&] { return client->in_flight() == 0; }));
}

TEST_CASE("BeastHttpClient: OnBody returning false is CANCELLED", "[http]") {
  auto server = StartServer();
  TestHttpServer* raw_server = server.get();
  server->HandleStream("/stream", [raw_server](const Request&, StreamWriter& writer) {
    writer.Write("first");
    if (raw_server->AwaitGate("client-done")) writer.Write("second");
  });
  server->Handle("GET", "/after", [](const Request&) { return Response{200, {}, "ok"}; });
  auto client = MakeClient();
  Recorder aborting([](const std::string&) { return false; });

  client->Start(Get(server->url("/stream")), &aborting);
  const bool completed = aborting.Wait();
  server->OpenGate("client-done");

  REQUIRE(completed);
  CHECK(absl::IsCancelled(aborting.status()));
  CHECK(aborting.events() == "HBC");
  CHECK(aborting.body() == "first");
  // The client stays usable (the aborted connection is not reused).
  Recorder after;
  client->Start(Get(server->url("/after")), &after);
  REQUIRE(after.Wait());
  CHECK(after.status().ok());
  CHECK(after.body() == "ok");
}

TEST_CASE("BeastHttpClient: Shutdown cancels exchanges in flight and refuses later ones",
          "[http]") {
  constexpr int kExchanges = 10;
  auto server = StartServer();
  TestHttpServer* raw_server = server.get();
  server->Handle("GET", "/hang", [raw_server](const Request&) {
    raw_server->AwaitGate("release");
    return Response{200, {}, "late"};
  });
  auto client = MakeClient(/*io_threads=*/2);
  std::vector<std::unique_ptr<Recorder>> recorders;
  for (int i = 0; i < kExchanges; ++i) {
    recorders.push_back(std::make_unique<Recorder>());
    client->Start(Get(server->url("/hang")), recorders.back().get());
  }
  // One more observer starts its next request from the cancelled OnComplete, on an I/O thread.
  Chain chain(client.get(), Get(server->url("/hang")), 2);
  client->Start(Get(server->url("/hang")), &chain);
  REQUIRE(WaitFor([&] { return server->requests_received() == kExchanges + 1; }));

  client->Shutdown();

  for (const auto& recorder : recorders) {
    CHECK(recorder->done());  // Shutdown returned after every OnComplete
    CHECK(absl::IsCancelled(recorder->status()));
    CHECK(recorder->completions() == 1);
  }
  const std::vector<std::string> chain_results = chain.Wait();
  REQUIRE(chain_results.size() == 2);
  CHECK(absl::StrContains(chain_results[0], "CANCELLED"));
  CHECK(absl::StrContains(chain_results[1], "CANCELLED"));
  CHECK(client->in_flight() == 0);

  Recorder late;
  client->Start(Get(server->url("/hang")), &late);
  CHECK(late.done());  // at once
  CHECK(absl::IsCancelled(late.status()));
  client->Shutdown();  // idempotent
  server->OpenGate("release");
}

TEST_CASE("BeastHttpClient: Connection: close from the server is honored", "[http]") {
  auto server = StartServer();
  server->Handle("GET", "/once", [](const Request&) {
    return Response{200, {{"Connection", "close"}}, "bye"};
  });
  auto client = MakeClient();

  for (int i = 0; i < 3; ++i) {
    Recorder recorder;
    client->Start(Get(server->url("/once")), &recorder);
    REQUIRE(recorder.Wait());
    REQUIRE(recorder.status().ok());
    CHECK(recorder.body() == "bye");
  }

  CHECK(server->connections_accepted() == 3);
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
      if (::poll(&poll_fd, 1, static_cast<int>(absl::ToInt64Milliseconds(kTestTimeout))) <= 0) {
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
  auto client = MakeClient();

  Recorder first;
  client->Start(Get(server.url("/a")), &first);
  REQUIRE(first.Wait());
  REQUIRE(first.status().ok());
  CHECK(first.body() == "first");
  if (close_when_idle) REQUIRE(WaitFor([&] { return server.closed() == 1; }));

  Recorder second;
  client->Start(Get(server.url("/b")), &second);
  REQUIRE(second.Wait());

  CHECK(second.status().ok());
  CHECK(second.events() == "HBC");
  CHECK(second.body() == "second");
  CHECK(server.accepted() == 2);
}

TEST_CASE("BeastHttpClient: a new connection closed before any response is UNAVAILABLE", "[http]") {
  ScriptedServer server([](int fd, int) { ScriptedServer::ReadHead(fd); });
  auto client = MakeClient();
  Recorder recorder;

  client->Start(Get(server.url("/x")), &recorder);

  REQUIRE(recorder.Wait());
  CHECK(absl::IsUnavailable(recorder.status()));
  CHECK(server.accepted() == 1);  // not retried: the connection was not a reused one
}

TEST_CASE("BeastHttpClient: a body delimited by the connection's end completes OK", "[http]") {
  ScriptedServer server([](int fd, int) {
    if (!ScriptedServer::ReadHead(fd)) return;
    ScriptedServer::Send(fd, "HTTP/1.1 200 OK\r\n\r\nuntil the end");
  });
  auto client = MakeClient();
  Recorder recorder;

  client->Start(Get(server.url("/x")), &recorder);

  REQUIRE(recorder.Wait());
  CHECK(recorder.status().ok());
  CHECK(recorder.body() == "until the end");
}

TEST_CASE("BeastHttpClient: bad requests complete INVALID_ARGUMENT", "[http]") {
  auto client = MakeClient();
  const std::string url = absl::StrCat("http://127.0.0.1:", testing::UnusedLoopbackPort(), "/");
  std::vector<AsyncHttpRequest> requests;
  for (const char* bad_url : {"", "ftp://127.0.0.1/x", "https://127.0.0.1/x", "http://",
                              "http://[::1/x", "http://127.0.0.1:99999/x", "http://127.0.0.1:8a/x",
                              "http://user@127.0.0.1:80/x", "http://127.0.0.1:80/a b"}) {
    requests.push_back(Get(bad_url));
  }
  requests.push_back(Get(url));
  requests.back().method = "PUT";
  requests.push_back(Get(url));
  requests.back().body = "a GET with a body";
  requests.push_back(Get(url));
  requests.back().headers = {{"X-A", "1\r\nX-B: 2"}};
  requests.push_back(Get(url));
  requests.back().timeout = absl::Milliseconds(-1);

  for (const AsyncHttpRequest& request : requests) {
    INFO("method=" << request.method << " url=" << request.url);
    Recorder recorder;
    client->Start(request, &recorder);
    REQUIRE(recorder.Wait());
    CHECK(absl::IsInvalidArgument(recorder.status()));
    CHECK(recorder.events() == "C");
  }
  CHECK(WaitFor([&] { return client->in_flight() == 0; }));
}

TEST_CASE("BeastHttpClient: Create rejects fewer than one I/O thread", "[http]") {
  BeastHttpClient::Options options;
  options.io_threads = 0;
  CHECK(absl::IsInvalidArgument(BeastHttpClient::Create(options).status()));
}

}  // namespace
}  // namespace kvbench
