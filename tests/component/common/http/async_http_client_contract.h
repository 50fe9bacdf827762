#pragma once

// What every AsyncHttpClient promises (common/http/async_http_client.h), checked the same way for
// any implementation: beast_http_client_test.cc calls these from its own TEST_CASEs and adds what
// is particular to its mechanism. Each adds its routes to `server` and runs its exchanges on
// `client`, which the caller made for that server.

#include <catch2/catch.hpp>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/http/async_http_client.h"
#include "tests/support/http_client_test_helpers.h"
#include "tests/support/recording_http_observer.h"
#include "tests/support/test_http_server.h"
#include "tests/support/unused_port.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {

// A refused connection completes UNAVAILABLE, naming "GET <url>" (and `detail`, where an
// implementation's message carries more), with no other call.
inline void CheckConnectionRefusedIsUnavailable(AsyncHttpClient& client,
                                                absl::string_view detail = "") {
  const std::string url = absl::StrCat("http://127.0.0.1:", UnusedLoopbackPort(), "/x");
  RecordingHttpObserver recorder;

  client.Start(AsyncGet(url), &recorder);

  REQUIRE(recorder.Wait());
  INFO(recorder.status().ToString());
  CHECK(absl::IsUnavailable(recorder.status()));
  CHECK(absl::StrContains(recorder.status().message(), "GET " + url));
  CHECK(absl::StrContains(recorder.status().message(), detail));
  CHECK(recorder.events() == "C");
}

// A chunked body cut short completes UNAVAILABLE, never OK, after delivering the bytes that came.
inline void CheckStreamCutShortIsUnavailable(TestHttpServer& server, AsyncHttpClient& client) {
  RouteCutStream(server);
  RecordingHttpObserver recorder;

  client.Start(AsyncGet(server.url("/cut")), &recorder);

  REQUIRE(recorder.Wait());
  INFO(recorder.status().ToString());
  CHECK(absl::IsUnavailable(recorder.status()));
  CHECK(recorder.http_status() == 200);
  CHECK(recorder.body() == "partial");  // what came is delivered, then the error
}

// A response slower than request.timeout completes DEADLINE_EXCEEDED, naming the path, with no
// other call; the client then has nothing in flight.
inline void CheckSlowResponseIsDeadlineExceeded(TestHttpServer& server, AsyncHttpClient& client) {
  RouteSlow(server);
  AsyncHttpRequest request = AsyncGet(server.url("/slow"));
  request.timeout = kShortHttpTimeout;
  RecordingHttpObserver recorder;

  client.Start(request, &recorder);
  const bool completed = recorder.Wait();
  server.OpenGate("release");  // lets the handler's thread finish

  REQUIRE(completed);
  INFO(recorder.status().ToString());
  CHECK(absl::IsDeadlineExceeded(recorder.status()));
  CHECK(absl::StrContains(recorder.status().message(), "/slow"));
  CHECK(recorder.events() == "C");
  CHECK(WaitFor([&] { return client.in_flight() == 0; }));  // after OnComplete returns
}

// OnBody returning false completes CANCELLED after what came; the client stays usable.
inline void CheckOnBodyFalseIsCancelled(TestHttpServer& server, AsyncHttpClient& client) {
  RouteAbortableStream(server);
  RecordingHttpObserver aborting([](absl::string_view) { return false; });

  client.Start(AsyncGet(server.url("/stream")), &aborting);
  const bool completed = aborting.Wait();
  server.OpenGate("client-done");

  REQUIRE(completed);
  INFO(aborting.status().ToString());
  CHECK(absl::IsCancelled(aborting.status()));
  CHECK(aborting.events() == "HBC");
  CHECK(aborting.body() == "first");
  RecordingHttpObserver after;
  client.Start(AsyncGet(server.url("/after")), &after);
  REQUIRE(after.Wait());
  CHECK(after.status().ok());
  CHECK(after.body() == "ok");
}

// chunked_body: the server reads the exact body (large, then empty) sent with
// Transfer-Encoding: chunked and no Content-Length; a plain POST after it on the same client
// carries Content-Length again (handles and connections reused across both kinds).
inline void CheckChunkedPostBodyArrivesExactly(TestHttpServer& server, AsyncHttpClient& client) {
  std::mutex mu;
  std::vector<TestHttpServer::Request> seen;
  server.Handle("POST", "/chunked", [&](const TestHttpServer::Request& request) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(request);
    return TestHttpServer::Response{200, {}, "ok"};
  });
  std::string big;
  for (int i = 0; big.size() < (1 << 20) + 7; ++i) big += static_cast<char>('a' + i % 26);
  struct Case {
    std::string body;
    bool chunked;
  };
  const std::vector<Case> cases = {{big, true}, {"", true}, {"plain", false}};
  for (const Case& c : cases) {
    AsyncHttpRequest request = AsyncGet(server.url("/chunked"));
    request.method = "POST";
    request.body = c.body;
    request.chunked_body = c.chunked;
    RecordingHttpObserver recorder;
    client.Start(request, &recorder);
    REQUIRE(recorder.Wait());
    INFO(recorder.status().ToString());
    REQUIRE(recorder.status().ok());
    CHECK(recorder.body() == "ok");
  }
  std::lock_guard<std::mutex> lock(mu);
  REQUIRE(seen.size() == cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    CHECK(seen[i].body == cases[i].body);
    CHECK(seen[i].Header("Transfer-Encoding").value_or("") == (cases[i].chunked ? "chunked" : ""));
    CHECK(seen[i].Header("Content-Length").has_value() == !cases[i].chunked);
  }
}

}  // namespace kvbench::testing
