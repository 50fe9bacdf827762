#pragma once

// Helpers of the HttpServer tests (http_server_test.cc, http_server_stream_test.cc): servers on
// loopback, a curl client, and raw sockets where the wire itself is the point.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
// GCC 12 with -fsanitize=address sees a boost::optional in Beast's parser as maybe-uninitialized
// (a false positive, fatal under -Werror); the warning is located in these headers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/beast/http.hpp>
#pragma GCC diagnostic pop
#include <catch2/catch.hpp>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/http/curl_http_client.h"
#include "common/http/http_server.h"
#include "tests/component/common/http/raw_http_connection.h"
#include "tests/support/unused_port.h"
#include "tests/support/wait_for.h"

namespace kvbench::http_test {

using kvbench::testing::WaitFor;


inline std::unique_ptr<HttpServer> NewServer(HttpServer::Options options = {}) {
  return HttpServer::Create(std::move(options));
}

// Starts `server` (routes added) and hands it back.
inline std::unique_ptr<HttpServer> Started(std::unique_ptr<HttpServer> server) {
  const absl::Status started = server->Start();
  INFO(started.ToString());
  REQUIRE(started.ok());
  return server;
}

inline std::unique_ptr<CurlHttpClient> MakeClient() {
  absl::StatusOr<std::unique_ptr<CurlHttpClient>> client = CurlHttpClient::Create();
  REQUIRE(client.ok());
  return *std::move(client);
}

inline std::string Url(const HttpServer& server, absl::string_view target) {
  return absl::StrCat("http://127.0.0.1:", server.port(), target);
}

inline HttpRequest MakeRequest(const std::string& method, const std::string& url, std::string body = "") {
  HttpRequest request;
  request.method = method;
  request.url = url;
  request.body = std::move(body);
  request.timeout = kTestTimeout;
  return request;
}

// Threads that handlers start to respond from, joined before the test checks what they saw.
class Workers {
 public:
  ~Workers() { JoinAll(); }
  void Spawn(std::function<void()> work) {
    std::lock_guard<std::mutex> lock(mu_);
    threads_.emplace_back(std::move(work));
  }
  void JoinAll() {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mu_);
      threads.swap(threads_);
    }
    for (std::thread& thread : threads) thread.join();
  }

 private:
  std::mutex mu_;
  std::vector<std::thread> threads_;
};

// A responder a handler hands to the test.
class HeldResponder {
 public:
  void Set(std::shared_ptr<HttpResponder> responder) {
    std::lock_guard<std::mutex> lock(mu_);
    responder_ = std::move(responder);
  }
  std::shared_ptr<HttpResponder> Get() {
    std::lock_guard<std::mutex> lock(mu_);
    return responder_;
  }
  void Reset() { Set(nullptr); }

 private:
  std::mutex mu_;
  std::shared_ptr<HttpResponder> responder_;
};

inline std::string RawGet(absl::string_view target, absl::string_view extra_headers = "") {
  return absl::StrCat("GET ", target, " HTTP/1.1\r\nHost: test\r\n", extra_headers, "\r\n");
}

// Routes shared by several tests: /ping answers "pong"; /echo answers with the body, the path
// and query in X-Path / X-Query, and the request's X-Test header in X-Got.
inline void AddEchoRoutes(HttpServer& server) {
  server.Handle("GET", "/ping", [](const HttpServerRequest&, std::shared_ptr<HttpResponder> r) {
    r->Respond(200, {{"Content-Type", "text/plain"}}, "pong");
  });
  auto echo = [](const HttpServerRequest& request, std::shared_ptr<HttpResponder> responder) {
    responder->Respond(200,
                       {{"X-Path", request.path},
                        {"X-Query", request.query},
                        {"X-Method", request.method},
                        {"X-Got", request.Header("x-TEST").value_or("<none>")}},
                       request.body);
  };
  server.Handle("POST", "/echo", echo);
  server.Handle("GET", "/echo", echo);
}

}  // namespace kvbench::http_test
