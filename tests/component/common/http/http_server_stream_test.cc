// HttpServer streaming (chunked responses), disconnects, dropped responders, Stop, concurrency.

#include "tests/component/common/http/http_server_test_helpers.h"

namespace kvbench::http_test {
namespace {

TEST_CASE("HttpServer delivers a streamed chunk before the handler sends the next",
          "[http_server]") {
  Workers workers;
  std::atomic<bool> first_received{false};
  std::atomic<bool> handler_saw_first{false};
  std::atomic<bool> io_thread_differs{false};
  auto server = NewServer();
  server->Handle("POST", "/v1/completions",
                 [&](const HttpServerRequest&, std::shared_ptr<HttpResponder> responder) {
                   const std::thread::id io_thread = std::this_thread::get_id();
                   workers.Spawn([&, io_thread, responder] {
                     io_thread_differs = std::this_thread::get_id() != io_thread;
                     responder->StartStream(200, {{"Content-Type", "text/event-stream"}});
                     responder->SendChunk("data: one\n\n");
                     handler_saw_first = WaitFor([&] { return first_received.load(); });
                     responder->SendChunk("data: two\n\n");
                     responder->SendChunk("");  // ignored: would read as the last chunk
                     responder->SendChunk("data: [DONE]\n\n");
                     responder->EndStream();
                   });
                 });
  server = Started(std::move(server));
  auto client = MakeClient();

  std::string received;
  absl::StatusOr<HttpResponse> response = client->SendStreaming(
      MakeRequest("POST", Url(*server, "/v1/completions"), "{}"), [&](absl::string_view chunk) {
        received.append(chunk.data(), chunk.size());
        if (absl::StrContains(received, "data: one\n\n")) first_received = true;
        return true;
      });
  workers.JoinAll();

  REQUIRE(response.ok());
  CHECK(response->status == 200);
  CHECK(response->Header("Content-Type") == "text/event-stream");
  CHECK(response->Header("Transfer-Encoding") == "chunked");
  CHECK(handler_saw_first.load());
  CHECK(io_thread_differs.load());
  CHECK(received == "data: one\n\ndata: two\n\ndata: [DONE]\n\n");
}

TEST_CASE("HttpServer streams many chunks from another thread in order", "[http_server]") {
  constexpr int kChunks = 5000;
  Workers workers;
  HttpServer::Options options;
  options.io_threads = 2;
  auto server = NewServer(options);
  server->Handle("GET", "/tokens", [&](const HttpServerRequest&, std::shared_ptr<HttpResponder> r) {
    workers.Spawn([r] {
      r->StartStream(200, {{"Content-Type", "text/event-stream"}});
      for (int i = 0; i < kChunks; ++i) r->SendChunk(absl::StrCat(i, ","));
      r->EndStream();
    });
  });
  server = Started(std::move(server));
  auto client = MakeClient();

  std::string received;
  absl::StatusOr<HttpResponse> response =
      client->SendStreaming(MakeRequest("GET", Url(*server, "/tokens")), [&](absl::string_view c) {
        received.append(c.data(), c.size());
        return true;
      });
  workers.JoinAll();

  REQUIRE(response.ok());
  std::string expected;
  for (int i = 0; i < kChunks; ++i) absl::StrAppend(&expected, i, ",");
  CHECK(received == expected);
}

TEST_CASE("HttpServer marks the responder closed when the client leaves mid-stream",
          "[http_server]") {
  HeldResponder held;
  auto server = NewServer();
  AddEchoRoutes(*server);
  server->Handle("GET", "/stream", [&](const HttpServerRequest&, std::shared_ptr<HttpResponder> r) {
    r->StartStream(200, {});
    r->SendChunk("first");
    held.Set(std::move(r));
  });
  server = Started(std::move(server));
  auto client = MakeClient();

  absl::StatusOr<HttpResponse> response = client->SendStreaming(
      MakeRequest("GET", Url(*server, "/stream")), [](absl::string_view) { return false; });
  CHECK(absl::IsCancelled(response.status()));

  REQUIRE(WaitFor([&] { return held.Get() != nullptr && held.Get()->closed(); }));
  std::shared_ptr<HttpResponder> responder = held.Get();
  responder->SendChunk("nobody listens");
  responder->EndStream();
  responder->Respond(200, {}, "too late");
  CHECK(responder->closed());
  held.Reset();
  responder.reset();

  absl::StatusOr<HttpResponse> next = client->Get(Url(*server, "/ping"), kTestTimeout);
  REQUIRE(next.ok());
  CHECK(next->body == "pong");
}

TEST_CASE("HttpServer answers for a handler that drops its responder", "[http_server]") {
  auto server = NewServer();
  server->Handle("GET", "/silent", [](const HttpServerRequest&, std::shared_ptr<HttpResponder>) {});
  server->Handle("GET", "/throws", [](const HttpServerRequest&, std::shared_ptr<HttpResponder>) {
    throw std::runtime_error("handler bug");
  });
  server->Handle("GET", "/half", [](const HttpServerRequest&, std::shared_ptr<HttpResponder> r) {
    r->StartStream(200, {});
    r->SendChunk("partial");
  });
  server = Started(std::move(server));
  auto client = MakeClient();

  for (const char* path : {"/silent", "/throws"}) {
    absl::StatusOr<HttpResponse> response = client->Get(Url(*server, path), kTestTimeout);
    INFO(path);
    REQUIRE(response.ok());
    CHECK(response->status == 500);
    CHECK(response->body.empty());
  }
  absl::StatusOr<HttpResponse> half = client->Get(Url(*server, "/half"), kTestTimeout);
  REQUIRE(half.ok());
  CHECK(half->status == 200);
  CHECK(half->body == "partial");
}

TEST_CASE("HttpServer Stop leaves responders held elsewhere harmless", "[http_server]") {
  HeldResponder held;
  auto server = NewServer();
  server->Handle("GET", "/hold", [&](const HttpServerRequest&, std::shared_ptr<HttpResponder> r) {
    held.Set(std::move(r));
  });
  server->Handle("GET", "/hold-stream",
                 [&](const HttpServerRequest&, std::shared_ptr<HttpResponder> r) {
                   r->StartStream(200, {});
                   held.Set(std::move(r));
                 });
  server = Started(std::move(server));
  auto client = MakeClient();
  const std::string path = GENERATE(std::string("/hold"), std::string("/hold-stream"));

  absl::StatusOr<HttpResponse> response;
  std::thread request([&] { response = client->Get(Url(*server, path), kTestTimeout); });
  const bool handed_over = WaitFor([&] { return held.Get() != nullptr; });
  server->Stop();
  request.join();
  REQUIRE(handed_over);
  CHECK_FALSE(response.ok());  // the connection closed without a (complete) response

  std::shared_ptr<HttpResponder> responder = held.Get();
  held.Reset();
  CHECK(responder->closed());
  responder->SendChunk("after stop");
  server.reset();
  responder->Respond(200, {}, "after destruction");
  responder->EndStream();
  CHECK(responder->closed());
  responder.reset();  // drops it with nothing sent: no 500 to anyone
}

TEST_CASE("HttpServer serves concurrent clients", "[http_server]") {
  constexpr int kClients = 8;
  constexpr int kRequestsEach = 100;
  HttpServer::Options options;
  options.io_threads = 4;
  auto server = NewServer(options);
  AddEchoRoutes(*server);
  server = Started(std::move(server));
  auto client = MakeClient();

  std::atomic<int> good{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; i < kRequestsEach; ++i) {
        const std::string body = absl::StrCat("client ", c, " request ", i);
        absl::StatusOr<HttpResponse> response =
            client->Send(MakeRequest("POST", Url(*server, "/echo"), body));
        if (response.ok() && response->status == 200 && response->body == body) ++good;
      }
    });
  }
  for (std::thread& thread : clients) thread.join();

  CHECK(good.load() == kClients * kRequestsEach);
}

}  // namespace
}  // namespace kvbench::http_test
