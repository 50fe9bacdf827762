// BeastHttpClient against real HTTP/1.1 servers on loopback (TestHttpServer). Tests where the
// moment of a server's close is the point: beast_http_client_close_test.cc.

#include "common/http/beast_http_client.h"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/component/common/http/async_http_client_contract.h"
#include "tests/support/http_client_test_helpers.h"
#include "tests/support/recording_http_observer.h"
#include "tests/support/test_http_server.h"
#include "tests/support/unused_port.h"
#include "tests/support/wait_for.h"

namespace kvbench {
namespace {

using testing::AsyncGet;
using testing::kHttpTestTimeout;
using testing::StartTestHttpServer;
using testing::TestHttpServer;
using testing::WaitFor;
using Request = TestHttpServer::Request;
using Response = TestHttpServer::Response;
using StreamWriter = TestHttpServer::StreamWriter;

using Recorder = testing::RecordingHttpObserver;

std::unique_ptr<BeastHttpClient> MakeClient(int io_threads = 1) {
  BeastHttpClient::Options options;
  options.io_threads = io_threads;
  return testing::RequireValue(BeastHttpClient::Create(options));
}

TEST_CASE("BeastHttpClient: streamed chunks arrive one by one, in order, stamped", "[http]") {
  constexpr int kChunks = 5;
  auto server = StartTestHttpServer();
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
  Recorder recorder([raw_server](absl::string_view body) {
    int events = 0;
    for (size_t at = body.find("\n\n"); at != absl::string_view::npos;
         at = body.find("\n\n", at + 2)) {
      ++events;
    }
    if (events > 0) raw_server->OpenGate(absl::StrCat("got-", events - 1));
    return true;
  });
  auto client = MakeClient();
  AsyncHttpRequest request = AsyncGet(server->url("/v1/completions"));
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
  auto server = StartTestHttpServer();
  auto client = MakeClient();
  Recorder recorder;

  client->Start(AsyncGet(server->url("/nothing-here")), &recorder);

  REQUIRE(recorder.Wait());
  CHECK(recorder.status().ok());
  CHECK(recorder.http_status() == 404);
  CHECK(absl::StrContains(recorder.body(), "no route"));
  CHECK(recorder.completions() == 1);
}

TEST_CASE("BeastHttpClient: a POST delivers its body and headers exactly", "[http]") {
  std::mutex mu;
  std::vector<Request> seen;
  auto server = StartTestHttpServer();
  server->Handle("POST", "/v1/chat/completions", [&](const Request& request) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(request);
    return Response{200, {}, "ok"};
  });
  auto client = MakeClient();
  std::string body = R"({"messages":[{"role":"user","content":")";
  for (int i = 0; body.size() < (1 << 20); ++i) body += static_cast<char>('a' + i % 26);
  body += R"("}]})";
  AsyncHttpRequest request = AsyncGet(server->url("/v1/chat/completions?stream=1"));
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
  auto server = StartTestHttpServer();
  const std::string big = testing::RouteBigBody(*server);
  auto client = MakeClient();
  Recorder recorder;

  client->Start(AsyncGet(server->url("/big")), &recorder);

  REQUIRE(recorder.Wait());
  REQUIRE(recorder.status().ok());
  CHECK(recorder.body() == big);
}

TEST_CASE("BeastHttpClient: 100 concurrent exchanges complete on kept-alive connections",
          "[http]") {
  constexpr int kConcurrent = 100;
  auto server = StartTestHttpServer();
  testing::RouteEcho(*server);
  auto client = MakeClient(/*io_threads=*/2);

  for (int wave = 0; wave < 2; ++wave) {
    std::vector<std::unique_ptr<Recorder>> recorders;
    for (int i = 0; i < kConcurrent; ++i) {
      recorders.push_back(std::make_unique<Recorder>());
      client->Start(AsyncGet(server->url(absl::StrCat("/echo?w=", wave, "&i=", i))),
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
    done_.wait_for(lock, absl::ToChronoMilliseconds(kHttpTestTimeout),
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
  auto server = StartTestHttpServer();
  server->Handle("POST", "/ping", [](const Request& request) {
    return Response{200, {}, "pong " + request.body};
  });
  auto client = MakeClient(/*io_threads=*/2);
  AsyncHttpRequest request = AsyncGet(server->url("/ping"));
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

TEST_CASE("BeastHttpClient: a chunked POST body arrives exactly, and plain POSTs still work",
          "[http]") {
  auto server = StartTestHttpServer();
  auto client = MakeClient();

  testing::CheckChunkedPostBodyArrivesExactly(*server, *client);
}

TEST_CASE("BeastHttpClient: connection refused is UNAVAILABLE", "[http]") {
  auto client = MakeClient();

  testing::CheckConnectionRefusedIsUnavailable(*client);
}

TEST_CASE("BeastHttpClient: a stream cut short is UNAVAILABLE, never OK", "[http]") {
  auto server = StartTestHttpServer();
  auto client = MakeClient();

  testing::CheckStreamCutShortIsUnavailable(*server, *client);
}

TEST_CASE("BeastHttpClient: a server slower than the timeout is DEADLINE_EXCEEDED", "[http]") {
  auto server = StartTestHttpServer();
  auto client = MakeClient();

  testing::CheckSlowResponseIsDeadlineExceeded(*server, *client);
}

// The aborted connection is not reused.
TEST_CASE("BeastHttpClient: OnBody returning false is CANCELLED", "[http]") {
  auto server = StartTestHttpServer();
  auto client = MakeClient();

  testing::CheckOnBodyFalseIsCancelled(*server, *client);
}

TEST_CASE("BeastHttpClient: Shutdown cancels exchanges in flight and refuses later ones",
          "[http]") {
  constexpr int kExchanges = 10;
  auto server = StartTestHttpServer();
  TestHttpServer* raw_server = server.get();
  server->Handle("GET", "/hang", [raw_server](const Request&) {
    raw_server->AwaitGate("release");
    return Response{200, {}, "late"};
  });
  auto client = MakeClient(/*io_threads=*/2);
  std::vector<std::unique_ptr<Recorder>> recorders;
  for (int i = 0; i < kExchanges; ++i) {
    recorders.push_back(std::make_unique<Recorder>());
    client->Start(AsyncGet(server->url("/hang")), recorders.back().get());
  }
  // One more observer starts its next request from the cancelled OnComplete, on an I/O thread.
  Chain chain(client.get(), AsyncGet(server->url("/hang")), 2);
  client->Start(AsyncGet(server->url("/hang")), &chain);
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
  client->Start(AsyncGet(server->url("/hang")), &late);
  CHECK(late.done());  // at once
  CHECK(absl::IsCancelled(late.status()));
  client->Shutdown();  // idempotent
  server->OpenGate("release");
}

TEST_CASE("BeastHttpClient: Connection: close from the server is honored", "[http]") {
  auto server = StartTestHttpServer();
  testing::RouteClosingResponse(*server);
  auto client = MakeClient();

  for (int i = 0; i < 3; ++i) {
    Recorder recorder;
    client->Start(AsyncGet(server->url("/once")), &recorder);
    REQUIRE(recorder.Wait());
    REQUIRE(recorder.status().ok());
    CHECK(recorder.body() == "bye");
  }

  CHECK(server->connections_accepted() == 3);
}

TEST_CASE("BeastHttpClient: bad requests complete INVALID_ARGUMENT", "[http]") {
  auto client = MakeClient();
  const std::string url = absl::StrCat("http://127.0.0.1:", testing::UnusedLoopbackPort(), "/");
  std::vector<AsyncHttpRequest> requests;
  for (const char* bad_url : {"", "ftp://127.0.0.1/x", "https://127.0.0.1/x", "http://",
                              "http://[::1/x", "http://127.0.0.1:99999/x", "http://127.0.0.1:8a/x",
                              "http://user@127.0.0.1:80/x", "http://127.0.0.1:80/a b"}) {
    requests.push_back(AsyncGet(bad_url));
  }
  requests.push_back(AsyncGet(url));
  requests.back().method = "PUT";
  requests.push_back(AsyncGet(url));
  requests.back().body = "a GET with a body";
  requests.push_back(AsyncGet(url));
  requests.back().headers = {{"X-A", "1\r\nX-B: 2"}};
  requests.push_back(AsyncGet(url));
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
