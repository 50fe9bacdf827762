// kvsim-vllm throughput: streamed chat completions per second, and per core of the simulator,
// at a time scale so high that simulated GPU time is negligible: what is measured is the
// simulator's own cost, which must stay far below what any test asks of it. Prints figures only.
//
//   build/bin/kv_bench_sim_throughput [clients] [requests per client]

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/http/curl_http_client.h"
#include "tests/support/sim_process.h"

namespace {

using Clock = std::chrono::steady_clock;

// User + system CPU seconds of a process so far (/proc/<pid>/stat fields 14 and 15).
double CpuSeconds(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  std::vector<std::string> fields;
  std::string field;
  for (size_t i = close + 2; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ' ') {
      fields.push_back(field);
      field.clear();
    } else {
      field += text[i];
    }
  }
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  return (std::stod(fields[11]) + std::stod(fields[12])) / sysconf(_SC_CLK_TCK);
}

}  // namespace

int main(int argc, char** argv) {
  const int clients = argc > 1 ? std::atoi(argv[1]) : 8;
  const int per_client = argc > 2 ? std::atoi(argv[2]) : 500;
  constexpr int kOutputTokens = 16;
  kvbench::testing::SimProcess sim(
      "kvsim-vllm",
      {KV_SIM_VLLM_PATH, "serve", "meta-llama/Llama-3.1-8B-Instruct", "--host", "127.0.0.1",
       "--port", "0", "--sim-time-scale", "0.0001", "--sim-load-seconds", "0"},
      "Starting vLLM API server on ");
  if (!sim.Start()) {
    std::fprintf(stderr, "%s\n", sim.error().c_str());
    return 1;
  }
  const std::string url = sim.url() + "/v1/chat/completions";
  std::atomic<long> completed{0}, failed{0}, events{0};
  const double cpu_before = CpuSeconds(sim.process()->pid());
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      auto client = kvbench::CurlHttpClient::Create();
      if (!client.ok()) return;
      for (int i = 0; i < per_client; ++i) {
        kvbench::HttpRequest request;
        request.method = "POST";
        request.url = url;
        request.headers = {{"Content-Type", "application/json"}};
        request.body = nlohmann::json{
            {"messages", {{{"role", "user"}, {"content", "user " + std::to_string(c) +
                                                         " asks question " + std::to_string(i)}}}},
            {"max_tokens", kOutputTokens},
            {"ignore_eos", true},
            {"stream", true}}.dump();
        long chunks = 0;
        auto response = (*client)->SendStreaming(request, [&](absl::string_view data) {
          for (size_t at = data.find("data: "); at != absl::string_view::npos;
               at = data.find("data: ", at + 1)) {
            ++chunks;
          }
          return true;
        });
        if (response.ok() && response->status == 200) {
          ++completed;
          events += chunks;
        } else {
          ++failed;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = CpuSeconds(sim.process()->pid()) - cpu_before;
  std::printf("kvsim-vllm: %d clients x %d streamed requests (%d tokens each), %ld failed\n",
              clients, per_client, kOutputTokens, failed.load());
  std::printf("  %.0f requests/s, %.0f SSE events/s over %.2f s wall\n", completed / seconds,
              events / seconds, seconds);
  std::printf("  simulator CPU %.2f s = %.2f cores busy: %.0f requests/s per core\n", cpu,
              cpu / seconds, cpu > 0 ? completed / cpu : 0.0);
  return failed.load() == 0 ? 0 : 1;
}
