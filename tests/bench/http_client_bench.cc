// CurlHttpClient figures against the loopback TestHttpServer: sequential keep-alive request
// rate, round-trip percentiles, and streamed chunks/s. Prints, asserts nothing.

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "common/http/curl_http_client.h"
#include "tests/bench/bench_stats.h"
#include "tests/support/test_http_server.h"

namespace {

using Clock = std::chrono::steady_clock;
using kvbench::testing::TestHttpServer;

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "bench failed: %s\n", std::string(status.message()).c_str());
  return 1;
}

}  // namespace

int main() {
  auto server = TestHttpServer::Create();
  if (!server.ok()) return Fail(server.status());
  (*server)->Handle("GET", "/ping", [](const TestHttpServer::Request&) {
    return TestHttpServer::Response{200, {}, "pong"};
  });
  constexpr int kChunks = 20000;
  (*server)->HandleStream("/stream", [](const TestHttpServer::Request&,
                                        TestHttpServer::StreamWriter& writer) {
    for (int i = 0; i < kChunks; ++i) {
      if (!writer.Write("data: {\"choices\":[{\"delta\":{\"content\":\"tok\"}}]}\n\n")) return;
    }
  });
  auto client = kvbench::CurlHttpClient::Create();
  if (!client.ok()) return Fail(client.status());

  constexpr int kRequests = 5000;
  std::vector<double> rtt_us;
  auto start = Clock::now();
  for (int i = 0; i < kRequests; ++i) {
    auto sent = Clock::now();
    auto response = (*client)->Get((*server)->url("/ping"));
    if (!response.ok()) return Fail(response.status());
    rtt_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - sent).count());
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("GET keep-alive: %d requests over %d connection(s): %.0f req/s, p50 %.0f us, "
              "p99 %.0f us\n",
              kRequests, static_cast<int>((*server)->connections_accepted()), kRequests / seconds,
              kvbench::bench::Percentile(rtt_us, 50), kvbench::bench::Percentile(rtt_us, 99));

  size_t callbacks = 0, bytes = 0;
  kvbench::HttpRequest request;
  request.method = "POST";
  request.url = (*server)->url("/stream");
  request.body = "{}";
  start = Clock::now();
  auto streamed = (*client)->SendStreaming(request, [&](absl::string_view chunk) {
    ++callbacks;
    bytes += chunk.size();
    return true;
  });
  if (!streamed.ok()) return Fail(streamed.status());
  seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("stream: %d server chunks, %zu bytes in %zu callbacks: %.0f chunks/s, %.1f MB/s\n",
              kChunks, bytes, callbacks, kChunks / seconds, bytes / seconds / 1e6);
  return 0;
}
