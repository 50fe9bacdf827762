#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace kvbench::testing {

// A real HTTP/1.1 server on 127.0.0.1:<ephemeral port> for tests, on Boost.Beast with blocking
// I/O: one thread accepts, and each connection gets its own thread that reads requests and runs
// handlers on them, so a handler may block (on a gate) without stalling other connections.
// Keep-alive follows the request (and a handler's "Connection: close").
//
//   auto server = TestHttpServer::Create();            // StatusOr<unique_ptr<TestHttpServer>>
//   (*server)->Handle("GET", "/metrics", [](const TestHttpServer::Request&) {
//     return TestHttpServer::Response{200, {{"Content-Type", "text/plain"}}, "up 1\n"};
//   });
//   client->Get((*server)->url("/metrics"));
//
// Handlers run on connection threads: state they share with the test needs its own locking or
// atomics, and must be declared before the server so it outlives the server's threads. Catch2
// assertions are not thread-safe: record what a handler saw and check it on the test thread.
// Unknown routes get 404; a handler that throws gets 500.
class TestHttpServer {
 public:
  using Headers = std::vector<std::pair<std::string, std::string>>;

  // How long AwaitGate waits by default before giving up, so a broken test cannot hang.
  static constexpr absl::Duration kDefaultGateTimeout = absl::Seconds(10);

  struct Request {
    std::string method;  // as sent: "GET", "POST"...
    std::string target;  // path and query, as sent
    Headers headers;     // names as sent
    std::string body;

    // The target without its query string.
    std::string path() const;
    // The first header named `name` (case-insensitive), if any.
    std::optional<std::string> Header(absl::string_view name) const;
  };

  struct Response {
    int status = 200;
    Headers headers;  // Content-Length is set by the server
    std::string body;
  };

  // Sends a response with Transfer-Encoding: chunked, one piece at a time. Used only on the
  // connection thread that runs the stream handler.
  class StreamWriter {
   public:
    virtual ~StreamWriter() = default;
    // Status and headers of the response; effective only before the first Write (default 200).
    virtual void SetHead(int status, Headers headers) = 0;
    // Sends the head if not yet sent, then `data` as one chunk, flushed at once. False once the
    // client has gone or the stream was aborted. Empty `data` sends nothing.
    virtual bool Write(absl::string_view data) = 0;
    // Closes the connection now, without the terminating chunk: the client sees a body cut
    // short. Later Writes return false.
    virtual void Abort() = 0;
  };

  using Handler = std::function<Response(const Request&)>;
  // Returning ends the body with the terminating chunk (unless Abort() was called).
  using StreamHandler = std::function<void(const Request&, StreamWriter&)>;

  // Listens on 127.0.0.1 with a port chosen by the kernel.
  static absl::StatusOr<std::unique_ptr<TestHttpServer>> Create();

  // Stop().
  ~TestHttpServer();
  TestHttpServer(const TestHttpServer&) = delete;
  TestHttpServer& operator=(const TestHttpServer&) = delete;

  // Routes requests with this method and path (the target without its query). Replaces an
  // earlier route for the same method and path. Callable at any time.
  void Handle(const std::string& method, const std::string& path, Handler handler);
  // Routes requests for `path` with any method to a streaming handler. Handle() routes for the
  // same path and method take precedence.
  void HandleStream(const std::string& path, StreamHandler handler);

  // Gates let a test pace its handlers: a handler blocks in AwaitGate until the test opens the
  // gate. Once open, a gate stays open.
  void OpenGate(const std::string& name);
  // True once `name` is open; false after `timeout`, or at once when the server is stopping.
  bool AwaitGate(const std::string& name, absl::Duration timeout = kDefaultGateTimeout);

  // Stops accepting, releases AwaitGate, closes every connection and joins all threads. Handlers
  // blocked elsewhere must return on their own. Idempotent; call from one thread, never from a
  // handler.
  void Stop();

  int port() const { return port_; }
  // "http://127.0.0.1:<port>" + path.
  std::string url(absl::string_view path) const;
  // TCP connections accepted so far: with keep-alive, sequential requests share one.
  int connections_accepted() const { return connections_accepted_.load(); }
  // Requests read so far, routed or not.
  int requests_received() const { return requests_received_.load(); }

 private:
  struct Io;          // Asio state, kept out of this header
  class Connection;   // one accepted socket

  struct Worker {
    std::shared_ptr<Connection> connection;
    std::thread thread;
  };

  TestHttpServer();

  void AcceptNext();
  void OnAccepted(std::shared_ptr<Connection> connection);
  void ReapFinishedWorkersLocked();
  void Serve(Connection& connection);
  // Routes one request and writes its response; false when the connection must close.
  bool Dispatch(Connection& connection, const Request& request, bool keep_alive);

  std::unique_ptr<Io> io_;
  int port_ = 0;
  std::atomic<int> connections_accepted_{0};
  std::atomic<int> requests_received_{0};

  std::mutex mu_;
  std::condition_variable gate_opened_;
  bool stopping_ = false;                                               // guarded by mu_
  std::map<std::pair<std::string, std::string>, Handler> routes_;       // guarded by mu_
  std::map<std::string, StreamHandler> stream_routes_;                  // guarded by mu_
  std::set<std::string> open_gates_;                                    // guarded by mu_
  std::vector<Worker> workers_;                                         // guarded by mu_

  std::thread acceptor_thread_;
};

}  // namespace kvbench::testing
