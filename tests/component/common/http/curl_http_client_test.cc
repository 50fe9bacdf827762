// CurlHttpClient against a real HTTP/1.1 server on loopback (TestHttpServer).

#include "common/http/curl_http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/support/http_client_test_helpers.h"
#include "tests/support/scoped_env.h"
#include "tests/support/test_http_server.h"
#include "tests/support/unused_port.h"

namespace kvbench {
namespace {

using testing::kHttpTestTimeout;
using testing::StartTestHttpServer;
using testing::TestHttpServer;
using Request = TestHttpServer::Request;
using Response = TestHttpServer::Response;
using StreamWriter = TestHttpServer::StreamWriter;

std::unique_ptr<CurlHttpClient> MakeClient() {
  return testing::RequireValue(CurlHttpClient::Create());
}

HttpRequest GetRequest(const std::string& url) {
  HttpRequest request;
  request.url = url;
  request.timeout = kHttpTestTimeout;
  return request;
}

using testing::ScopedEnv;

TEST_CASE("CurlHttpClient: GET returns status, body and headers", "[http]") {
  auto server = StartTestHttpServer();
  server->Handle("GET", "/hello", [](const Request& request) {
    return Response{
        200, {{"X-Kv-Echo", request.target}, {"Content-Type", "text/plain"}}, "hello world"};
  });
  auto client = MakeClient();

  absl::StatusOr<HttpResponse> response = client->Get(server->url("/hello?x=1"));

  REQUIRE(response.ok());
  CHECK(response->status == 200);
  CHECK(response->body == "hello world");
  CHECK(response->Header("x-kv-echo") == "/hello?x=1");
  CHECK(response->Header("CONTENT-TYPE") == "text/plain");
  CHECK_FALSE(response->Header("X-Missing").has_value());
}

TEST_CASE("CurlHttpClient: POST JSON delivers body, Content-Type and headers", "[http]") {
  auto server = StartTestHttpServer();
  server->Handle("POST", "/v1/completions", [](const Request& request) {
    return Response{200,
                    {{"X-Got-Content-Type", request.Header("Content-Type").value_or("")},
                     {"X-Got-Request-Id", request.Header("x-request-id").value_or("")}},
                    request.body};
  });
  auto client = MakeClient();
  const std::string json = R"({"prompt":"hi","max_tokens":4})";

  SECTION("PostJson") {
    absl::StatusOr<HttpResponse> response =
        client->PostJson(server->url("/v1/completions"), json, kHttpTestTimeout);
    REQUIRE(response.ok());
    CHECK(response->status == 200);
    CHECK(response->body == json);
    CHECK(response->Header("X-Got-Content-Type") == "application/json");
  }
  SECTION("Send with extra headers and a body past curl's Expect: 100-continue threshold") {
    HttpRequest request = GetRequest(server->url("/v1/completions"));
    request.method = "POST";
    request.headers = {{"Content-Type", "application/json"}, {"X-Request-Id", "r-17"}};
    request.body = absl::StrCat(R"({"pad":")", std::string(2 << 20, 'x'), R"("})");
    absl::StatusOr<HttpResponse> response = client->Send(request);
    REQUIRE(response.ok());
    CHECK(response->body == request.body);
    CHECK(response->Header("X-Got-Request-Id") == "r-17");
  }
}

TEST_CASE("CurlHttpClient: HTTP error statuses are responses, not errors", "[http]") {
  auto server = StartTestHttpServer();
  server->Handle("GET", "/boom", [](const Request&) { return Response{500, {}, "boom"}; });
  auto client = MakeClient();

  absl::StatusOr<HttpResponse> missing =
      client->Get(server->url("/nothing-here"), kHttpTestTimeout);
  REQUIRE(missing.ok());
  CHECK(missing->status == 404);

  absl::StatusOr<HttpResponse> failing = client->Get(server->url("/boom"), kHttpTestTimeout);
  REQUIRE(failing.ok());
  CHECK(failing->status == 500);
  CHECK(failing->body == "boom");
}

TEST_CASE("CurlHttpClient: large bodies arrive intact", "[http]") {
  auto server = StartTestHttpServer();
  const std::string big = testing::RouteBigBody(*server);
  auto client = MakeClient();

  absl::StatusOr<HttpResponse> response = client->Get(server->url("/big"), kHttpTestTimeout);

  REQUIRE(response.ok());
  CHECK(response->body.size() == big.size());
  CHECK(response->body == big);
}

TEST_CASE("CurlHttpClient: connection refused is UNAVAILABLE", "[http]") {
  auto client = MakeClient();
  const std::string url =
      absl::StrCat("http://127.0.0.1:", testing::UnusedLoopbackPort(), "/metrics");

  absl::StatusOr<HttpResponse> response = client->Get(url, kHttpTestTimeout);

  REQUIRE(absl::IsUnavailable(response.status()));
  CHECK(absl::StrContains(response.status().message(), "GET " + url));
  CHECK(absl::StrContains(response.status().message(), "(curl error 7)"));  // COULDNT_CONNECT
}

TEST_CASE("CurlHttpClient: a handler slower than the timeout is DEADLINE_EXCEEDED", "[http]") {
  auto server = StartTestHttpServer();
  testing::RouteSlow(*server);
  auto client = MakeClient();

  absl::StatusOr<HttpResponse> response =
      client->Get(server->url("/slow"), testing::kShortHttpTimeout);
  server->OpenGate("release");  // lets the handler's thread finish

  REQUIRE(absl::IsDeadlineExceeded(response.status()));
  CHECK(absl::StrContains(response.status().message(), "/slow"));
}

TEST_CASE("CurlHttpClient: streaming hands over each chunk as it arrives", "[http]") {
  std::atomic<bool> second_sent{false};
  auto server = StartTestHttpServer();
  TestHttpServer* raw_server = server.get();
  server->HandleStream("/v1/completions",
                       [&second_sent, raw_server](const Request&, StreamWriter& writer) {
                         writer.SetHead(200, {{"Content-Type", "text/event-stream"}});
                         writer.Write("data: 1\n\n");
                         // Without the gate a client that buffered chunk 1 until chunk 2 would
                         // still pass.
                         if (!raw_server->AwaitGate("chunk-1-received", absl::Seconds(5))) return;
                         second_sent.store(true);
                         writer.Write("data: 2\n\n");
                         writer.Write("data: [DONE]\n\n");
                       });
  auto client = MakeClient();
  HttpRequest request = GetRequest(server->url("/v1/completions"));
  request.method = "POST";
  request.body = "{}";

  std::string received;
  std::optional<bool> first_arrived_before_second_sent;
  absl::StatusOr<HttpResponse> response =
      client->SendStreaming(request, [&](absl::string_view chunk) {
        received.append(chunk.data(), chunk.size());
        if (!first_arrived_before_second_sent && received == "data: 1\n\n") {
          first_arrived_before_second_sent = !second_sent.load();
          raw_server->OpenGate("chunk-1-received");
        }
        return true;
      });

  REQUIRE(response.ok());
  CHECK(response->status == 200);
  CHECK(response->body.empty());
  CHECK(response->Header("Content-Type") == "text/event-stream");
  CHECK(first_arrived_before_second_sent == true);
  CHECK(received == "data: 1\n\ndata: 2\n\ndata: [DONE]\n\n");
}

TEST_CASE("CurlHttpClient: a chunk callback returning false is CANCELLED", "[http]") {
  auto server = StartTestHttpServer();
  testing::RouteAbortableStream(*server);
  auto client = MakeClient();

  int chunks = 0;
  absl::StatusOr<HttpResponse> response =
      client->SendStreaming(GetRequest(server->url("/stream")), [&](absl::string_view) {
        ++chunks;
        return false;
      });
  server->OpenGate("client-done");

  REQUIRE(absl::IsCancelled(response.status()));
  CHECK(chunks == 1);
  // The aborted handle goes back to the pool in a usable state.
  absl::StatusOr<HttpResponse> after = client->Get(server->url("/after"), kHttpTestTimeout);
  REQUIRE(after.ok());
  CHECK(after->body == "ok");
}

TEST_CASE("CurlHttpClient: sequential requests reuse one connection", "[http]") {
  auto server = StartTestHttpServer();
  server->Handle("GET", "/ping", [](const Request&) { return Response{200, {}, "pong"}; });
  auto client = MakeClient();

  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<HttpResponse> response = client->Get(server->url("/ping"), kHttpTestTimeout);
    REQUIRE(response.ok());
    CHECK(response->body == "pong");
  }

  CHECK(server->requests_received() == 3);
  CHECK(server->connections_accepted() == 1);
}

TEST_CASE("CurlHttpClient: reconnects after the server closes a connection", "[http]") {
  auto server = StartTestHttpServer();
  testing::RouteClosingResponse(*server);
  auto client = MakeClient();

  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<HttpResponse> response = client->Get(server->url("/once"), kHttpTestTimeout);
    REQUIRE(response.ok());
    CHECK(response->body == "bye");
  }

  CHECK(server->connections_accepted() == 2);
}

TEST_CASE("CurlHttpClient: concurrent requests from 8 threads all succeed", "[http]") {
  constexpr int kThreads = 8;
  constexpr int kRequestsPerThread = 25;
  auto server = StartTestHttpServer();
  testing::RouteEcho(*server);
  auto client = MakeClient();

  std::mutex mu;
  std::vector<std::string> failures;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRequestsPerThread; ++i) {
        const std::string target = absl::StrCat("/echo?t=", t, "&i=", i);
        absl::StatusOr<HttpResponse> response = client->Get(server->url(target), kHttpTestTimeout);
        if (!response.ok() || response->body != target) {
          std::lock_guard<std::mutex> lock(mu);
          failures.push_back(response.ok() ? "wrong body " + response->body
                                           : response.status().ToString());
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  CHECK(failures.empty());
  CHECK(server->requests_received() == kThreads * kRequestsPerThread);
  // One pooled handle per concurrent caller at most, each keeping its connection open.
  CHECK(server->connections_accepted() <= kThreads);
}

TEST_CASE("CurlHttpClient: a body cut short is UNAVAILABLE, never a short success", "[http]") {
  auto server = StartTestHttpServer();
  testing::RouteCutStream(*server);
  auto client = MakeClient();

  SECTION("streaming: the bytes that came are delivered, then the error") {
    std::string received;
    absl::StatusOr<HttpResponse> response =
        client->SendStreaming(GetRequest(server->url("/cut")), [&](absl::string_view chunk) {
          received.append(chunk.data(), chunk.size());
          return true;
        });
    REQUIRE(absl::IsUnavailable(response.status()));
    CHECK(received == "partial");
    // curl 7.88 reports a chunked body ended by EOF as CURLE_PARTIAL_FILE.
    CHECK(absl::StrContains(response.status().message(), "(curl error 18)"));
  }
  SECTION("buffered") {
    absl::StatusOr<HttpResponse> response = client->Get(server->url("/cut"), kHttpTestTimeout);
    REQUIRE(absl::IsUnavailable(response.status()));
    CHECK(absl::StrContains(response.status().message(), "(curl error 18)"));
  }
}

TEST_CASE("CurlHttpClient: bad requests are INVALID_ARGUMENT", "[http]") {
  auto client = MakeClient();
  const std::string url = absl::StrCat("http://127.0.0.1:", testing::UnusedLoopbackPort(), "/");

  HttpRequest put = GetRequest(url);
  put.method = "PUT";
  CHECK(absl::IsInvalidArgument(client->Send(put).status()));

  HttpRequest get_with_body = GetRequest(url);
  get_with_body.body = "x";
  CHECK(absl::IsInvalidArgument(client->Send(get_with_body).status()));

  HttpRequest header_injection = GetRequest(url);
  header_injection.headers = {{"X-A", "1\r\nX-B: 2"}};
  CHECK(absl::IsInvalidArgument(client->Send(header_injection).status()));

  CHECK(absl::IsInvalidArgument(client->Get(url, absl::Milliseconds(-1)).status()));
  CHECK(absl::IsInvalidArgument(client->Get("http://[::1/x", kHttpTestTimeout).status()));
  CHECK(absl::IsInvalidArgument(client->Get("ftp://127.0.0.1/x", kHttpTestTimeout).status()));
  CHECK(absl::IsInvalidArgument(client->Get("", kHttpTestTimeout).status()));
}

TEST_CASE("CurlHttpClient: a request that fails before connecting leaves the client usable",
          "[http]") {
  auto server = StartTestHttpServer();
  server->Handle("GET", "/ok", [](const Request&) { return Response{200, {}, "ok"}; });
  auto client = MakeClient();

  // curl 7.88 fails this one after allocating the handle's receive buffer; reusing that handle
  // once made every later call on it fail with BAD_FUNCTION_ARGUMENT (INTERNAL).
  REQUIRE(absl::IsInvalidArgument(client->Get("ftp://127.0.0.1/x", kHttpTestTimeout).status()));
  absl::StatusOr<HttpResponse> response = client->Get(server->url("/ok"), kHttpTestTimeout);

  REQUIRE(response.ok());
  CHECK(response->body == "ok");
}

TEST_CASE("CurlHttpClient: proxy variables in the environment are ignored", "[http]") {
  // A proxy nobody listens on: a client that honored it would fail with UNAVAILABLE.
  const std::string proxy = absl::StrCat("http://127.0.0.1:", testing::UnusedLoopbackPort());
  ScopedEnv http_proxy("http_proxy", proxy);
  ScopedEnv all_proxy("ALL_PROXY", proxy);
  ScopedEnv no_proxy("no_proxy", "");
  auto server = StartTestHttpServer();
  server->Handle("GET", "/metrics", [](const Request&) { return Response{200, {}, "up 1\n"}; });
  auto client = MakeClient();

  absl::StatusOr<HttpResponse> response = client->Get(server->url("/metrics"), kHttpTestTimeout);

  REQUIRE(response.ok());
  CHECK(response->body == "up 1\n");
}

}  // namespace
}  // namespace kvbench
