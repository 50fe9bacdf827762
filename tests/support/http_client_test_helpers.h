#pragma once

// Helpers of the HTTP client tests (curl_http_client_test.cc, beast_http_client_test.cc): the
// timeouts they share, a TestHttpServer on loopback with the routes their scenarios share, and the
// request every async exchange starts from. Header-only, for Catch2 test files: failures REQUIRE.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/http/async_http_client.h"
#include "tests/support/test_http_server.h"

namespace kvbench::testing {

// Short, so a timeout test is quick; far longer than any loopback exchange.
inline constexpr absl::Duration kShortHttpTimeout = absl::Milliseconds(200);
// Bounds every other exchange and wait, so a broken client fails a test instead of hanging it.
inline constexpr absl::Duration kHttpTestTimeout = absl::Seconds(10);

// The value of `result`; the test stops (REQUIRE) with its status if there is none.
template <typename T>
T RequireValue(absl::StatusOr<T> result) {
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  return *std::move(result);
}

// A TestHttpServer listening on loopback (no routes yet).
inline std::unique_ptr<TestHttpServer> StartTestHttpServer() {
  return RequireValue(TestHttpServer::Create());
}

// GET /echo answers 200 with the request's target (path and query).
inline void RouteEcho(TestHttpServer& server) {
  server.Handle("GET", "/echo", [](const TestHttpServer::Request& request) {
    return TestHttpServer::Response{200, {}, request.target};
  });
}

// GET /big answers 200 with a 4 MiB body ('a' to 'z' over and over), which this returns for the
// test to compare.
inline std::string RouteBigBody(TestHttpServer& server) {
  std::string big(4 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
  server.Handle("GET", "/big", [big](const TestHttpServer::Request&) {
    return TestHttpServer::Response{200, {}, big};
  });
  return big;
}

// GET /once answers 200 "bye" with "Connection: close": the server closes after each response.
inline void RouteClosingResponse(TestHttpServer& server) {
  server.Handle("GET", "/once", [](const TestHttpServer::Request&) {
    return TestHttpServer::Response{200, {{"Connection", "close"}}, "bye"};
  });
}

// GET /slow answers 200 "late", but only once the test opens the gate "release" (or the server
// stops): for timeouts.
inline void RouteSlow(TestHttpServer& server) {
  server.Handle("GET", "/slow", [&server](const TestHttpServer::Request&) {
    server.AwaitGate("release");
    return TestHttpServer::Response{200, {}, "late"};
  });
}

// /stream sends "first", then "second" once the test opens the gate "client-done"; GET /after
// answers 200 "ok": for a client that aborts a stream and must stay usable.
inline void RouteAbortableStream(TestHttpServer& server) {
  server.HandleStream(
      "/stream", [&server](const TestHttpServer::Request&, TestHttpServer::StreamWriter& writer) {
        writer.Write("first");
        if (server.AwaitGate("client-done")) writer.Write("second");
      });
  server.Handle("GET", "/after", [](const TestHttpServer::Request&) {
    return TestHttpServer::Response{200, {}, "ok"};
  });
}

// /cut sends "partial", then closes the connection without the terminating zero-length chunk:
// a body cut short.
inline void RouteCutStream(TestHttpServer& server) {
  server.HandleStream("/cut",
                      [](const TestHttpServer::Request&, TestHttpServer::StreamWriter& writer) {
                        writer.Write("partial");
                        writer.Abort();
                      });
}

// A GET of `url` for an AsyncHttpClient, bounded by kHttpTestTimeout; tests change what they need.
inline AsyncHttpRequest AsyncGet(const std::string& url) {
  AsyncHttpRequest request;
  request.method = "GET";
  request.url = url;
  request.timeout = kHttpTestTimeout;
  return request;
}

}  // namespace kvbench::testing
