// HttpServer figures on loopback, with CurlHttpClient as the client: sequential keep-alive
// request rate and round-trip percentiles, concurrent request rate, and streamed chunks/s with
// the chunks sent from the I/O thread and from a thread of the handler's own. Prints, asserts
// nothing.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/http/curl_http_client.h"
#include "common/http/http_server.h"
#include "tests/bench/bench_stats.h"

namespace {

using Clock = std::chrono::steady_clock;
using kvbench::HttpResponder;
using kvbench::HttpServerRequest;

constexpr int kSequentialRequests = 5000;
constexpr int kConcurrentClients = 8;
constexpr int kConcurrentRequestsEach = 2000;
constexpr int kChunks = 20000;
constexpr int kPingPongChunks = 2000;
constexpr char kChunk[] = "data: {\"choices\":[{\"delta\":{\"content\":\"tok\"}}]}\n\n";

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "bench failed: %s\n", std::string(status.message()).c_str());
  return 1;
}

// Streams kChunks chunks from `url` and prints the rate.
absl::Status Stream(kvbench::HttpClient& client, const std::string& url, const char* label) {
  kvbench::HttpRequest request;
  request.method = "POST";
  request.url = url;
  request.body = "{}";
  size_t callbacks = 0, bytes = 0;
  const auto start = Clock::now();
  auto streamed = client.SendStreaming(request, [&](absl::string_view chunk) {
    ++callbacks;
    bytes += chunk.size();
    return true;
  });
  if (!streamed.ok()) return streamed.status();
  const double seconds = SecondsSince(start);
  std::printf("stream (%s): %d chunks, %zu bytes in %zu callbacks: %.0f chunks/s, %.1f MB/s\n",
              label, kChunks, bytes, callbacks, kChunks / seconds, bytes / seconds / 1e6);
  return absl::OkStatus();
}

}  // namespace

int main() {
  kvbench::HttpServer::Options options;
  options.io_threads = 2;
  auto server = kvbench::HttpServer::Create(options);
  server->Handle("GET", "/ping", [](const HttpServerRequest&, std::shared_ptr<HttpResponder> r) {
    r->Respond(200, {{"Content-Type", "text/plain"}}, "pong");
  });
  server->Handle("POST", "/stream-io", [](const HttpServerRequest&,
                                          std::shared_ptr<HttpResponder> r) {
    r->StartStream(200, {{"Content-Type", "text/event-stream"}});
    for (int i = 0; i < kChunks; ++i) r->SendChunk(kChunk);
    r->EndStream();
  });
  std::mutex streamers_mu;
  std::vector<std::thread> streamers;  // guarded by streamers_mu; joined before the server stops
  server->Handle("POST", "/stream-thread", [&](const HttpServerRequest&,
                                               std::shared_ptr<HttpResponder> r) {
    std::lock_guard<std::mutex> lock(streamers_mu);
    streamers.emplace_back([r] {
      r->StartStream(200, {{"Content-Type", "text/event-stream"}});
      for (int i = 0; i < kChunks; ++i) r->SendChunk(kChunk);
      r->EndStream();
    });
  });
  // One chunk at a time: the next leaves only once the client has the previous one, so every
  // chunk is its own write and the figure is the delivery latency of a single token.
  std::atomic<int> pingpong_received{0};
  server->Handle("POST", "/stream-pingpong", [&](const HttpServerRequest&,
                                                 std::shared_ptr<HttpResponder> r) {
    std::lock_guard<std::mutex> lock(streamers_mu);
    streamers.emplace_back([r, &pingpong_received] {
      r->StartStream(200, {{"Content-Type", "text/event-stream"}});
      for (int i = 0; i < kPingPongChunks; ++i) {
        r->SendChunk(kChunk);
        while (pingpong_received.load() <= i && !r->closed()) std::this_thread::yield();
      }
      r->EndStream();
    });
  });
  if (absl::Status started = server->Start(); !started.ok()) return Fail(started);
  const std::string base = absl::StrCat("http://127.0.0.1:", server->port());
  auto client = kvbench::CurlHttpClient::Create();
  if (!client.ok()) return Fail(client.status());

  std::vector<double> rtt_us;
  auto start = Clock::now();
  for (int i = 0; i < kSequentialRequests; ++i) {
    const auto sent = Clock::now();
    auto response = (*client)->Get(base + "/ping");
    if (!response.ok()) return Fail(response.status());
    rtt_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - sent).count());
  }
  double seconds = SecondsSince(start);
  std::printf("GET keep-alive, 1 client: %d requests: %.0f req/s, p50 %.0f us, p99 %.0f us\n",
              kSequentialRequests, kSequentialRequests / seconds,
              kvbench::bench::Percentile(rtt_us, 50), kvbench::bench::Percentile(rtt_us, 99));

  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  start = Clock::now();
  for (int c = 0; c < kConcurrentClients; ++c) {
    clients.emplace_back([&] {
      for (int i = 0; i < kConcurrentRequestsEach; ++i) {
        auto response = (*client)->Get(base + "/ping");
        if (!response.ok() || response->status != 200) ++failures;
      }
    });
  }
  for (std::thread& thread : clients) thread.join();
  seconds = SecondsSince(start);
  std::printf("GET keep-alive, %d clients, %d I/O threads: %d requests: %.0f req/s (%d failed)\n",
              kConcurrentClients, options.io_threads, kConcurrentClients * kConcurrentRequestsEach,
              kConcurrentClients * kConcurrentRequestsEach / seconds, failures.load());

  absl::Status streamed = Stream(**client, base + "/stream-io", "sent on the I/O thread");
  if (streamed.ok()) {
    streamed = Stream(**client, base + "/stream-thread", "sent from a handler thread");
  }
  if (streamed.ok()) {
    kvbench::HttpRequest request;
    request.method = "POST";
    request.url = base + "/stream-pingpong";
    request.body = "{}";
    size_t bytes = 0;
    start = Clock::now();
    auto response = (*client)->SendStreaming(request, [&](absl::string_view chunk) {
      bytes += chunk.size();
      pingpong_received.store(static_cast<int>(bytes / (sizeof(kChunk) - 1)));
      return true;
    });
    seconds = SecondsSince(start);
    if (response.ok()) {
      std::printf("stream (one chunk in flight): %d chunks: %.0f chunks/s, %.1f us per chunk\n",
                  kPingPongChunks, kPingPongChunks / seconds, seconds / kPingPongChunks * 1e6);
    }
    streamed = response.status();
  }
  {
    std::lock_guard<std::mutex> lock(streamers_mu);
    for (std::thread& thread : streamers) thread.join();
  }
  if (!streamed.ok()) return Fail(streamed);
  server->Stop();
  return 0;
}
