// CurlMultiHttpClient against a real HTTP/1.1 server on loopback (TestHttpServer).

#include "common/http/curl_multi_http_client.h"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tests/component/common/http/async_http_client_contract.h"
#include "tests/support/http_client_test_helpers.h"
#include "tests/support/recording_http_observer.h"
#include "tests/support/scoped_env.h"
#include "tests/support/test_http_server.h"
#include "tests/support/unused_port.h"
#include "tests/support/wait_for.h"

namespace kvbench {
namespace {

using testing::AsyncGet;
using testing::StartTestHttpServer;
using testing::TestHttpServer;
using Request = TestHttpServer::Request;
using Response = TestHttpServer::Response;
using StreamWriter = TestHttpServer::StreamWriter;

using Recorder = testing::RecordingHttpObserver;

std::unique_ptr<CurlMultiHttpClient> MakeClient(CurlMultiHttpClient::Options options = {}) {
  return testing::RequireValue(CurlMultiHttpClient::Create(options));
}

// Starts `count` GETs of `url` at once and waits for them all; returns how many were not OK.
int RunWave(CurlMultiHttpClient& client, const std::string& url, int count) {
  std::vector<std::unique_ptr<Recorder>> recorders;
  for (int i = 0; i < count; ++i) recorders.push_back(std::make_unique<Recorder>());
  for (int i = 0; i < count; ++i) {
    client.Start(AsyncGet(absl::StrCat(url, "?i=", i)), recorders[i].get());
  }
  int failures = 0;
  for (const auto& recorder : recorders) {
    if (!recorder->Wait() || !recorder->status().ok()) ++failures;
  }
  return failures;
}

TEST_CASE("CurlMultiHttpClient: a stream arrives chunk by chunk, in order, stamped", "[http]") {
  std::atomic<bool> second_sent{false};
  std::atomic<int> first_before_second{-1};
  auto server = StartTestHttpServer();
  TestHttpServer* raw_server = server.get();
  server->HandleStream("/v1/completions", [&](const Request&, StreamWriter& writer) {
    writer.SetHead(200, {{"Content-Type", "text/event-stream"}});
    writer.Write("data: 1\n\n");
    // Without the gate a client that held chunk 1 back until chunk 2 would still pass.
    if (!raw_server->AwaitGate("chunk-1-received")) return;
    second_sent.store(true);
    writer.Write("data: 2\n\n");
    writer.Write("data: [DONE]\n\n");
  });
  Recorder recorder([&](absl::string_view body_so_far) {
    if (body_so_far == "data: 1\n\n") {
      first_before_second.store(second_sent.load() ? 0 : 1);
      raw_server->OpenGate("chunk-1-received");
    }
    return true;
  });
  auto client = MakeClient();
  AsyncHttpRequest request = AsyncGet(server->url("/v1/completions"));
  request.method = "POST";
  request.body = "{}";

  client->Start(request, &recorder);

  REQUIRE(recorder.Wait());
  INFO(recorder.status().ToString());
  CHECK(recorder.status().ok());
  CHECK(recorder.http_status() == 200);
  CHECK(recorder.body() == "data: 1\n\ndata: 2\n\ndata: [DONE]\n\n");
  CHECK(first_before_second.load() == 1);
  const std::string events = recorder.events();
  CHECK(events.front() == 'H');
  CHECK(events.find_first_not_of('B', 1) == events.size() - 1);  // H B+ C
  CHECK(events.size() >= 4);                                     // chunk 1 alone, then the rest
  CHECK(recorder.StampsNonDecreasing());
  CHECK(testing::WaitFor([&] { return client->in_flight() == 0; }));  // after OnComplete returns
}

TEST_CASE("CurlMultiHttpClient: HTTP error statuses are responses, not errors", "[http]") {
  Recorder missing;
  Recorder failing;
  auto server = StartTestHttpServer();
  server->Handle("GET", "/boom", [](const Request&) { return Response{503, {}, "busy"}; });
  auto client = MakeClient();

  client->Start(AsyncGet(server->url("/nothing-here")), &missing);
  client->Start(AsyncGet(server->url("/boom")), &failing);

  REQUIRE(missing.Wait());
  REQUIRE(failing.Wait());
  CHECK(missing.status().ok());
  CHECK(missing.http_status() == 404);
  CHECK(failing.status().ok());
  CHECK(failing.http_status() == 503);
  CHECK(failing.body() == "busy");
  CHECK(failing.events() == "HBC");
}

TEST_CASE("CurlMultiHttpClient: proxy variables in the environment are ignored", "[http]") {
  // A proxy nobody listens on: a client that honoured it would fail with UNAVAILABLE.
  const std::string proxy = absl::StrCat("http://127.0.0.1:", testing::UnusedLoopbackPort());
  testing::ScopedEnv http_proxy("http_proxy", proxy);
  testing::ScopedEnv all_proxy("ALL_PROXY", proxy);
  testing::ScopedEnv no_proxy("no_proxy", "");
  Recorder recorder;
  auto server = StartTestHttpServer();
  server->Handle("GET", "/metrics", [](const Request&) { return Response{200, {}, "up 1\n"}; });
  auto client = MakeClient();

  client->Start(AsyncGet(server->url("/metrics")), &recorder);

  REQUIRE(recorder.Wait());
  CHECK(recorder.status().ok());
  CHECK(recorder.body() == "up 1\n");
}

TEST_CASE("CurlMultiHttpClient: POST body and headers reach the server exactly", "[http]") {
  std::mutex mu;
  std::vector<Request> seen;
  Recorder recorder;
  auto server = StartTestHttpServer();
  server->Handle("POST", "/v1/completions", [&](const Request& request) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(request);
    return Response{200, {}, "ok"};
  });
  auto client = MakeClient();
  // Past curl's "Expect: 100-continue" threshold, with every byte value.
  std::string body(3 << 20, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>(i * 7 % 256);
  AsyncHttpRequest request = AsyncGet(server->url("/v1/completions?stream=1"));
  request.method = "POST";
  request.headers = {{"Content-Type", "application/json"}, {"x-user-id", "user-17"}};
  request.body = body;

  client->Start(request, &recorder);

  REQUIRE(recorder.Wait());
  CHECK(recorder.status().ok());
  CHECK(recorder.body() == "ok");
  std::lock_guard<std::mutex> lock(mu);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "POST");
  CHECK(seen[0].target == "/v1/completions?stream=1");
  CHECK(seen[0].Header("X-User-Id") == "user-17");
  CHECK(seen[0].Header("Content-Type") == "application/json");
  CHECK_FALSE(seen[0].Header("Expect").has_value());
  CHECK(seen[0].body.size() == body.size());
  CHECK(seen[0].body == body);
}

TEST_CASE("CurlMultiHttpClient: 100 concurrent exchanges complete and keep their connections",
          "[http]") {
  constexpr int kConcurrent = 100;
  auto server = StartTestHttpServer();
  testing::RouteEcho(*server);
  CurlMultiHttpClient::Options options;
  SECTION("one I/O thread") { options.io_threads = 1; }
  // Round-robin gives each thread the same share of both waves.
  SECTION("two I/O threads") { options.io_threads = 2; }
  auto client = MakeClient(options);

  CHECK(RunWave(*client, server->url("/echo"), kConcurrent) == 0);
  CHECK(RunWave(*client, server->url("/echo"), kConcurrent) == 0);

  CHECK(server->requests_received() == 2 * kConcurrent);
  // Never more connections than exchanges in flight at once: the second wave reopened none
  // that the first left open.
  CHECK(server->connections_accepted() <= kConcurrent);
  CHECK(testing::WaitFor([&] { return client->in_flight() == 0; }));  // after OnComplete returns
}

TEST_CASE("CurlMultiHttpClient: Start from OnComplete chains exchanges", "[http]") {
  constexpr int kChained = 50;
  Recorder last;
  std::vector<std::unique_ptr<Recorder>> recorders;
  auto server = StartTestHttpServer();
  server->Handle("GET", "/step", [](const Request& request) {
    return Response{200, {}, request.target};
  });
  auto client = MakeClient();
  std::atomic<int> failures{0};
  for (int i = 0; i < kChained; ++i) {
    // Runs once every recorder exists: the first Start comes after this loop.
    recorders.push_back(std::make_unique<Recorder>(nullptr, [&, i](const absl::Status& status) {
      if (!status.ok()) failures.fetch_add(1);
      AsyncHttpObserver* next = i + 1 < kChained ? recorders[i + 1].get() : &last;
      client->Start(AsyncGet(server->url(absl::StrCat("/step?i=", i + 1))), next);
    }));
  }

  client->Start(AsyncGet(server->url("/step?i=0")), recorders[0].get());

  REQUIRE(last.Wait());
  CHECK(last.status().ok());
  CHECK(last.body() == absl::StrCat("/step?i=", kChained));
  CHECK(failures.load() == 0);
  CHECK(server->requests_received() == kChained + 1);
  CHECK(server->connections_accepted() == 1);
  CHECK(testing::WaitFor([&] { return client->in_flight() == 0; }));
}

TEST_CASE("CurlMultiHttpClient: a chunked POST body arrives exactly, and plain POSTs still work",
          "[http]") {
  auto server = StartTestHttpServer();
  auto client = MakeClient();

  testing::CheckChunkedPostBodyArrivesExactly(*server, *client);
}

TEST_CASE("CurlMultiHttpClient: connection refused is UNAVAILABLE", "[http]") {
  auto client = MakeClient();

  testing::CheckConnectionRefusedIsUnavailable(*client, "(curl error 7)");  // COULDNT_CONNECT
}

TEST_CASE("CurlMultiHttpClient: a stream cut short is UNAVAILABLE, never a success", "[http]") {
  auto server = StartTestHttpServer();
  auto client = MakeClient();

  testing::CheckStreamCutShortIsUnavailable(*server, *client);
}

TEST_CASE("CurlMultiHttpClient: a response slower than the timeout is DEADLINE_EXCEEDED",
          "[http]") {
  auto server = StartTestHttpServer();
  auto client = MakeClient();

  testing::CheckSlowResponseIsDeadlineExceeded(*server, *client);
}

// The aborted exchange's handle is reused, in a usable state.
TEST_CASE("CurlMultiHttpClient: OnBody returning false is CANCELLED", "[http]") {
  auto server = StartTestHttpServer();
  auto client = MakeClient();

  testing::CheckOnBodyFalseIsCancelled(*server, *client);
}

TEST_CASE("CurlMultiHttpClient: Shutdown cancels exchanges in flight and later Starts", "[http]") {
  constexpr int kInFlight = 5;
  std::vector<std::unique_ptr<Recorder>> recorders;
  for (int i = 0; i < kInFlight; ++i) recorders.push_back(std::make_unique<Recorder>());
  Recorder late;
  auto server = StartTestHttpServer();
  TestHttpServer* raw_server = server.get();
  server->HandleStream("/hang", [raw_server](const Request&, StreamWriter& writer) {
    writer.Write("started");
    raw_server->AwaitGate("never");
  });
  CurlMultiHttpClient::Options options;
  options.io_threads = 2;
  auto client = MakeClient(options);

  for (auto& recorder : recorders) client->Start(AsyncGet(server->url("/hang")), recorder.get());
  REQUIRE(testing::WaitFor([&] {
    return std::all_of(recorders.begin(), recorders.end(),
                       [](const auto& recorder) { return recorder->body() == "started"; });
  }));
  CHECK(client->in_flight() == kInFlight);

  client->Shutdown();

  for (const auto& recorder : recorders) {
    CHECK(recorder->done());
    INFO(recorder->status().ToString());
    CHECK(absl::IsCancelled(recorder->status()));
  }
  CHECK(client->in_flight() == 0);
  client->Start(AsyncGet(server->url("/hang")), &late);
  CHECK(late.done());  // at once, on this thread
  CHECK(absl::IsCancelled(late.status()));
  client->Shutdown();  // idempotent
  CHECK(client->in_flight() == 0);
  server->OpenGate("never");
}

TEST_CASE("CurlMultiHttpClient: bad requests are INVALID_ARGUMENT", "[http]") {
  auto server = StartTestHttpServer();
  server->Handle("GET", "/ok", [](const Request&) { return Response{200, {}, "ok"}; });
  auto client = MakeClient();
  const std::string url = server->url("/ok");
  std::vector<AsyncHttpRequest> bad(6, AsyncGet(url));
  bad[0].method = "PUT";
  bad[1].body = "a GET with a body";
  bad[2].headers = {{"X-A", "1\r\nX-B: 2"}};
  bad[3].timeout = absl::Milliseconds(-1);
  bad[4].url = "http://[::1/x";
  bad[5].url = "ftp://127.0.0.1/x";

  for (size_t i = 0; i < bad.size(); ++i) {
    Recorder recorder;
    client->Start(bad[i], &recorder);
    REQUIRE(recorder.Wait());
    INFO(i << ": " << recorder.status().ToString());
    CHECK(absl::IsInvalidArgument(recorder.status()));
    CHECK(recorder.events() == "C");
  }
  // Failed exchanges leave their handles usable.
  Recorder good;
  client->Start(AsyncGet(url), &good);
  REQUIRE(good.Wait());
  CHECK(good.status().ok());
  CHECK(good.body() == "ok");
  CHECK(testing::WaitFor([&] { return client->in_flight() == 0; }));  // after OnComplete returns
}

TEST_CASE("CurlMultiHttpClient: Create rejects bad options", "[http]") {
  CurlMultiHttpClient::Options no_threads;
  no_threads.io_threads = 0;
  CHECK(absl::IsInvalidArgument(CurlMultiHttpClient::Create(no_threads).status()));
  CurlMultiHttpClient::Options negative;
  negative.max_connections_per_host = -1;
  CHECK(absl::IsInvalidArgument(CurlMultiHttpClient::Create(negative).status()));
}

TEST_CASE("CurlMultiHttpClient: max_connections_per_host caps the connections", "[http]") {
  auto server = StartTestHttpServer();
  testing::RouteEcho(*server);
  CurlMultiHttpClient::Options options;
  options.max_connections_per_host = 2;
  auto client = MakeClient(options);

  CHECK(RunWave(*client, server->url("/echo"), 20) == 0);

  CHECK(server->requests_received() == 20);
  CHECK(server->connections_accepted() <= 2);
}

}  // namespace
}  // namespace kvbench
