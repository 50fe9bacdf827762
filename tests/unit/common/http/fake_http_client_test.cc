#include "tests/fakes/fake_http_client.h"

#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kvbench::testing {
namespace {

constexpr char kUrl[] = "http://127.0.0.1:9400/metrics";

TEST_CASE("HttpResponse::Header is case-insensitive and returns the first match", "[http]") {
  HttpResponse response;
  response.headers = {{"Content-Type", "text/plain"}, {"X-Dup", "1"}, {"x-dup", "2"}};
  CHECK(response.Header("content-type") == "text/plain");
  CHECK(response.Header("X-DUP") == "1");
  CHECK_FALSE(response.Header("Content").has_value());
}

TEST_CASE("FakeHttpClient: a URL with nothing set up is UNAVAILABLE", "[http]") {
  FakeHttpClient client;

  absl::StatusOr<HttpResponse> response = client.Get(kUrl);

  CHECK(absl::IsUnavailable(response.status()));
  REQUIRE(client.requests().size() == 1);
  CHECK(client.requests()[0].url == kUrl);
}

TEST_CASE("FakeHttpClient: enqueued responses come in order, then the default", "[http]") {
  FakeHttpClient client;
  client.EnqueueResponse(kUrl, FakeHttpClient::MakeResponse(200, "first"));
  client.EnqueueResponse(kUrl, absl::DeadlineExceededError("slow"));
  client.EnqueueResponse("http://other/", FakeHttpClient::MakeResponse(200, "other"));

  CHECK(client.Get(kUrl)->body == "first");
  CHECK(absl::IsDeadlineExceeded(client.Get(kUrl).status()));
  CHECK(absl::IsUnavailable(client.Get(kUrl).status()));  // drained, no default

  client.SetDefaultResponse(kUrl, FakeHttpClient::MakeResponse(503, "busy"));
  client.EnqueueResponse(kUrl, FakeHttpClient::MakeResponse(200, "queued"));
  CHECK(client.Get(kUrl)->body == "queued");
  CHECK(client.Get(kUrl)->status == 503);
  CHECK(client.Get(kUrl)->status == 503);
  CHECK(client.Get("http://other/")->body == "other");
}

TEST_CASE("FakeHttpClient: records requests as sent", "[http]") {
  FakeHttpClient client;
  client.SetDefaultResponse(kUrl, FakeHttpClient::MakeResponse(200, ""));

  REQUIRE(client.PostJson(kUrl, R"({"a":1})", absl::Seconds(3)).ok());
  REQUIRE(client.Get(kUrl).ok());

  const std::vector<HttpRequest> requests = client.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].method == "POST");
  CHECK(requests[0].body == R"({"a":1})");
  CHECK(requests[0].timeout == absl::Seconds(3));
  REQUIRE(requests[0].headers.size() == 1);
  CHECK(requests[0].headers[0] == std::make_pair(std::string("Content-Type"),
                                                 std::string("application/json")));
  CHECK(requests[1].method == "GET");
  CHECK(requests[1].timeout == kDefaultHttpTimeout);
}

TEST_CASE("FakeHttpClient: methods the real client refuses are INVALID_ARGUMENT", "[http]") {
  FakeHttpClient client;
  client.SetDefaultResponse(kUrl, FakeHttpClient::MakeResponse(200, ""));
  client.SetStreamChunks(kUrl, {"a"});
  HttpRequest request;
  request.method = "DELETE";
  request.url = kUrl;

  CHECK(absl::IsInvalidArgument(client.Send(request).status()));
  int chunks = 0;
  CHECK(absl::IsInvalidArgument(client.SendStreaming(request, [&](absl::string_view) {
    ++chunks;
    return true;
  }).status()));
  CHECK(chunks == 0);
  CHECK(client.requests().size() == 2);
}

TEST_CASE("FakeHttpClient: streaming hands over the chunks in order", "[http]") {
  FakeHttpClient client;
  HttpRequest request;
  request.method = "POST";
  request.url = kUrl;
  std::vector<std::string> received;
  auto collect = [&](absl::string_view chunk) {
    received.emplace_back(chunk);
    return true;
  };

  SECTION("set chunks, no response: 200 with an empty body") {
    client.SetStreamChunks(kUrl, {"data: 1\n\n", "data: 2\n\n"});
    absl::StatusOr<HttpResponse> response = client.SendStreaming(request, collect);
    REQUIRE(response.ok());
    CHECK(response->status == 200);
    CHECK(response->body.empty());
    CHECK(received == std::vector<std::string>{"data: 1\n\n", "data: 2\n\n"});
  }
  SECTION("no chunks: the response body as one chunk") {
    client.EnqueueResponse(kUrl, FakeHttpClient::MakeResponse(200, "whole"));
    absl::StatusOr<HttpResponse> response = client.SendStreaming(request, collect);
    REQUIRE(response.ok());
    CHECK(response->body.empty());
    CHECK(received == std::vector<std::string>{"whole"});
  }
  SECTION("chunks then an error: a stream cut short") {
    client.SetStreamChunks(kUrl, {"data: 1\n\n"});
    client.EnqueueResponse(kUrl, absl::UnavailableError("reset"));
    CHECK(absl::IsUnavailable(client.SendStreaming(request, collect).status()));
    CHECK(received == std::vector<std::string>{"data: 1\n\n"});
  }
  SECTION("an error and no chunks: no callback") {
    client.EnqueueResponse(kUrl, absl::UnavailableError("refused"));
    CHECK(absl::IsUnavailable(client.SendStreaming(request, collect).status()));
    CHECK(received.empty());
  }
}

TEST_CASE("FakeHttpClient: a chunk callback returning false is CANCELLED", "[http]") {
  FakeHttpClient client;
  client.SetStreamChunks(kUrl, {"a", "b", "c"});
  HttpRequest request;
  request.url = kUrl;
  int calls = 0;

  absl::StatusOr<HttpResponse> response = client.SendStreaming(request, [&](absl::string_view) {
    ++calls;
    return false;
  });

  CHECK(absl::IsCancelled(response.status()));
  CHECK(calls == 1);
}

TEST_CASE("FakeHttpClient: is safe to call from several threads", "[http]") {
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 100;
  FakeHttpClient client;
  client.SetDefaultResponse(kUrl, FakeHttpClient::MakeResponse(200, "ok"));
  for (int i = 0; i < kThreads; ++i) {
    client.EnqueueResponse(kUrl, FakeHttpClient::MakeResponse(200, "ok"));
  }

  std::vector<std::thread> threads;
  std::vector<int> ok_counts(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        absl::StatusOr<HttpResponse> response = client.Get(kUrl);
        if (response.ok() && response->body == "ok") ++ok_counts[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  for (int t = 0; t < kThreads; ++t) CHECK(ok_counts[t] == kCallsPerThread);
  CHECK(client.requests().size() == static_cast<size_t>(kThreads * kCallsPerThread));
}

}  // namespace
}  // namespace kvbench::testing
