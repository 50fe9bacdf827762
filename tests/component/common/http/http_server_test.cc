// HttpServer lifecycle, routing, bodies and keep-alive on loopback.

#include "tests/component/common/http/http_server_test_helpers.h"

namespace kvbench::http_test {
namespace {

TEST_CASE("HttpServer refuses connections before Start and serves after it", "[http_server]") {
  HttpServer::Options options;
  options.port = testing::UnusedLoopbackPort();
  auto server = NewServer(options);
  AddEchoRoutes(*server);
  auto client = MakeClient();
  const std::string url = absl::StrCat("http://127.0.0.1:", options.port, "/ping");

  CHECK(absl::IsUnavailable(client->Get(url, kTestTimeout).status()));

  server = Started(std::move(server));
  CHECK(server->port() == options.port);
  absl::StatusOr<HttpResponse> response = client->Get(url, kTestTimeout);
  REQUIRE(response.ok());
  CHECK(response->status == 200);
  CHECK(response->body == "pong");
}

TEST_CASE("HttpServer Start fails with UNAVAILABLE naming the address of a taken port",
          "[http_server]") {
  auto first = Started(NewServer());
  HttpServer::Options options;
  options.port = first->port();
  auto second = NewServer(options);

  const absl::Status status = second->Start();

  CHECK(absl::IsUnavailable(status));
  CHECK(absl::StrContains(status.message(), absl::StrCat("127.0.0.1:", first->port())));
}

TEST_CASE("HttpServer Start and Stop follow their lifecycle", "[http_server]") {
  auto never_started = NewServer();
  never_started->Stop();
  never_started->Stop();
  CHECK(absl::IsFailedPrecondition(never_started->Start()));

  auto server = Started(NewServer());
  CHECK(server->port() > 0);
  CHECK(absl::IsFailedPrecondition(server->Start()));
  server->Stop();
  server->Stop();
}

TEST_CASE("HttpServer round-trips GET and POST bodies headers and queries", "[http_server]") {
  auto server = NewServer();
  AddEchoRoutes(*server);
  server = Started(std::move(server));
  auto client = MakeClient();

  HttpRequest post = MakeRequest("POST", Url(*server, "/echo?model=m&x=1"), R"({"prompt":"hi"})");
  post.headers = {{"Content-Type", "application/json"}, {"X-Test", "abc"}};
  absl::StatusOr<HttpResponse> posted = client->Send(post);
  REQUIRE(posted.ok());
  CHECK(posted->status == 200);
  CHECK(posted->body == R"({"prompt":"hi"})");
  CHECK(posted->Header("x-path") == "/echo");
  CHECK(posted->Header("X-Query") == "model=m&x=1");
  CHECK(posted->Header("X-Method") == "POST");
  CHECK(posted->Header("X-Got") == "abc");
  CHECK(posted->Header("Content-Length") == std::to_string(post.body.size()));

  absl::StatusOr<HttpResponse> got = client->Get(Url(*server, "/echo"), kTestTimeout);
  REQUIRE(got.ok());
  CHECK(got->status == 200);
  CHECK(got->body.empty());
  CHECK(got->Header("X-Query") == "");
  CHECK(got->Header("X-Method") == "GET");
  CHECK(got->Header("X-Got") == "<none>");
}

TEST_CASE("HttpServerRequest Header matches names case-insensitively", "[http_server]") {
  HttpServerRequest request;
  request.headers = {{"Content-Type", "application/json"}, {"x-dup", "1"}, {"X-Dup", "2"}};
  CHECK(request.Header("content-type") == "application/json");
  CHECK(request.Header("X-DUP") == "1");
  CHECK_FALSE(request.Header("Accept").has_value());
}

TEST_CASE("HttpServer answers 404 for unknown paths and 405 for other methods", "[http_server]") {
  auto server = NewServer();
  AddEchoRoutes(*server);
  server = Started(std::move(server));
  auto client = MakeClient();

  absl::StatusOr<HttpResponse> missing = client->Get(Url(*server, "/nothing"), kTestTimeout);
  REQUIRE(missing.ok());
  CHECK(missing->status == 404);
  CHECK(missing->body.empty());

  absl::StatusOr<HttpResponse> wrong_method = client->Send(MakeRequest("POST", Url(*server, "/ping")));
  REQUIRE(wrong_method.ok());
  CHECK(wrong_method->status == 405);
  CHECK(wrong_method->Header("Allow") == "GET");
}

TEST_CASE("HttpServer hands unrouted requests to the fallback", "[http_server]") {
  auto server = NewServer();
  AddEchoRoutes(*server);
  server->SetFallback([](const HttpServerRequest& request, std::shared_ptr<HttpResponder> r) {
    r->Respond(418, {}, absl::StrCat("fallback ", request.method, " ", request.path));
  });
  server = Started(std::move(server));
  auto client = MakeClient();

  absl::StatusOr<HttpResponse> missing = client->Get(Url(*server, "/nothing?q"), kTestTimeout);
  REQUIRE(missing.ok());
  CHECK(missing->status == 418);
  CHECK(missing->body == "fallback GET /nothing");
  absl::StatusOr<HttpResponse> routed = client->Get(Url(*server, "/ping"), kTestTimeout);
  REQUIRE(routed.ok());
  CHECK(routed->body == "pong");
}

TEST_CASE("HttpServer answers 413 to a body over the limit and takes one at it",
          "[http_server]") {
  HttpServer::Options options;
  options.max_body_bytes = 1024;
  auto server = NewServer(options);
  AddEchoRoutes(*server);
  server = Started(std::move(server));
  auto client = MakeClient();

  absl::StatusOr<HttpResponse> too_big =
      client->Send(MakeRequest("POST", Url(*server, "/echo"), std::string(64 * 1024, 'x')));
  INFO(too_big.status().ToString());
  REQUIRE(too_big.ok());
  CHECK(too_big->status == 413);

  absl::StatusOr<HttpResponse> at_limit =
      client->Send(MakeRequest("POST", Url(*server, "/echo"), std::string(1024, 'y')));
  REQUIRE(at_limit.ok());
  CHECK(at_limit->status == 200);
  CHECK(at_limit->body == std::string(1024, 'y'));
}

TEST_CASE("HttpServer takes a 2 MB body with and without Expect 100-continue",
          "[http_server]") {
  auto server = NewServer();
  AddEchoRoutes(*server);
  server = Started(std::move(server));
  std::string body(2 << 20, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + i % 26);

  SECTION("curl") {
    auto client = MakeClient();
    absl::StatusOr<HttpResponse> response =
        client->Send(MakeRequest("POST", Url(*server, "/echo"), body));
    REQUIRE(response.ok());
    CHECK(response->status == 200);
    CHECK(response->body == body);
  }
  SECTION("raw with Expect 100-continue") {
    RawConnection connection(server->port());
    connection.Write(absl::StrCat("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: ",
                                  body.size(), "\r\nExpect: 100-continue\r\n\r\n"));
    std::optional<http::response<http::string_body>> interim = connection.ReadResponse();
    REQUIRE(interim.has_value());
    CHECK(interim->result_int() == 100);
    connection.Write(body);
    std::optional<http::response<http::string_body>> response = connection.ReadResponse();
    REQUIRE(response.has_value());
    CHECK(response->result_int() == 200);
    CHECK(response->body() == body);
  }
}

TEST_CASE("HttpServer keeps a connection alive across requests", "[http_server]") {
  Workers workers;
  auto server = NewServer();
  AddEchoRoutes(*server);
  // Answers from another thread, after the handler has returned.
  server->Handle("GET", "/later", [&](const HttpServerRequest&, std::shared_ptr<HttpResponder> r) {
    workers.Spawn([r] { r->Respond(200, {{"X-Query", "later"}}, "later"); });
  });
  server->Handle("GET", "/stream", [](const HttpServerRequest&, std::shared_ptr<HttpResponder> r) {
    r->StartStream(200, {});
    r->SendChunk("a");
    r->SendChunk("b");
    r->EndStream();
  });
  server = Started(std::move(server));
  RawConnection connection(server->port());

  for (const char* target : {"/ping", "/stream", "/later", "/echo?x", "/later", "/ping"}) {
    connection.Write(RawGet(target));
    std::optional<http::response<http::string_body>> response = connection.ReadResponse();
    INFO(target);
    REQUIRE(response.has_value());
    CHECK(response->result_int() == 200);
    CHECK(response->keep_alive());
  }
  SECTION("pipelined requests are answered in order") {
    connection.Write(RawGet("/echo?1") + RawGet("/later") + RawGet("/stream") +
                     RawGet("/later") + RawGet("/echo?5"));
    for (const char* query : {"1", "later", "", "later", "5"}) {
      std::optional<http::response<http::string_body>> response = connection.ReadResponse();
      REQUIRE(response.has_value());
      CHECK(std::string(response->base()["X-Query"]) == query);
    }
  }
  SECTION("Connection close from the client ends it after the response") {
    connection.Write(RawGet("/ping", "Connection: close\r\n"));
    std::optional<http::response<http::string_body>> response = connection.ReadResponse();
    REQUIRE(response.has_value());
    CHECK(response->body() == "pong");
    CHECK_FALSE(response->keep_alive());
    CHECK(connection.ReadsEof());
  }
  SECTION("HTTP/1.0 without keep-alive closes after the response") {
    connection.Write("GET /ping HTTP/1.0\r\n\r\n");
    std::optional<http::response<http::string_body>> response = connection.ReadResponse();
    REQUIRE(response.has_value());
    CHECK(response->body() == "pong");
    CHECK(connection.ReadsEof());
  }
  SECTION("HTTP/1.0 gets a stream unchunked until the connection closes") {
    connection.Write("GET /stream HTTP/1.0\r\n\r\n");
    std::optional<http::response<http::string_body>> response = connection.ReadResponse();
    REQUIRE(response.has_value());
    // The body ran until the server closed the connection: that read was the end. (Reading
    // again after an end of stream hangs in Asio 1.74's reactor, so it is not done here.)
    CHECK(response->body() == "ab");
    CHECK_FALSE(response->chunked());
  }
  SECTION("Stop closes an idle keep-alive connection") {
    server->Stop();
    CHECK(connection.ReadsEof());
  }
}

TEST_CASE("HttpServer honours Connection close from a handler and drops framing headers",
          "[http_server]") {
  auto server = NewServer();
  server->Handle("GET", "/bye", [](const HttpServerRequest&, std::shared_ptr<HttpResponder> r) {
    r->Respond(200, {{"Connection", "close"}, {"Content-Length", "999"}, {"X-Ok", "1"}}, "bye");
  });
  server = Started(std::move(server));
  RawConnection connection(server->port());

  connection.Write(RawGet("/bye"));
  std::optional<http::response<http::string_body>> response = connection.ReadResponse();
  REQUIRE(response.has_value());
  CHECK(response->body() == "bye");
  CHECK(std::string(response->base()["Content-Length"]) == "3");
  CHECK(std::string(response->base()["X-Ok"]) == "1");
  CHECK(connection.ReadsEof());
}

}  // namespace
}  // namespace kvbench::http_test
