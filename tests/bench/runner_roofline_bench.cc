// Runner roofline: kv-runner against kv-null-sse-target (answers at once from memory) at 1, 64
// and 512 concurrent users, printing completed requests/s, streamed SSE events/s and the client's
// own TTFT overhead (the runner's first-token time − the target's first-content-chunk send stamp,
// both on CLOCK_MONOTONIC); then the target's ceiling under `wrk`. Prints figures only.
// tests/bench/runner_http_ceiling.sh compares the same client with wrk and a Python client on a
// Caddy target at 64 and 256 users.
//
//   build/bin/kv_bench_runner_roofline
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "agent/runner/request_record.h"
#include "common/http/curl_http_client.h"
#include "common/process/posix_process_launcher.h"
#include "tests/bench/bench_stats.h"
#include "tests/support/sim_process.h"
#include "tests/support/temp_dir.h"

namespace {

constexpr int kContentChunks = 16;
constexpr int kEventsPerRequest = kContentChunks + 4;  // + role, finish, usage, [DONE]
constexpr int kConversations = 3000;
constexpr int kAssistantTurns = 10;  // two 5-round users per conversation
constexpr int kNumRounds = 5;
constexpr char kReadyMarker[] = "null SSE target listening on ";

std::string SyntheticDataset() {
  std::string out;
  for (int c = 0; c < kConversations; ++c) {
    nlohmann::json messages = nlohmann::json::array();
    for (int t = 0; t < kAssistantTurns; ++t) {
      messages.push_back(
          {{"role", "user"},
           {"content", "conversation " + std::to_string(c) + " question " + std::to_string(t)}});
      messages.push_back({{"role", "assistant"}, {"content", "answer " + std::to_string(t)}});
    }
    out += nlohmann::json{{"messages", messages}}.dump() + "\n";
  }
  return out;
}

struct Level {
  int users = 0;
  int sessions = 0;
};

struct Figures {
  size_t completed = 0;
  size_t failed = 0;
  double requests_per_s = 0;
  std::vector<double> overhead_us;
};

kvbench::testing::SimProcess StartTarget() {
  return kvbench::testing::SimProcess("kv-null-sse-target",
                                      {KV_NULL_SSE_TARGET_PATH, "--port", "0", "--io-threads", "2",
                                       "--content-chunks", std::to_string(kContentChunks)},
                                      kReadyMarker);
}

bool RunRunner(const std::string& url, const Level& level, const std::string& dataset,
               const kvbench::testing::TempDir& dir) {
  kvbench::ProcessSpec spec;
  spec.name = "kv-runner";
  spec.argv = {KV_RUNNER_PATH,
               "--base-url",
               url,
               "--model",
               "null",
               "--num-users",
               std::to_string(level.users),
               "--num-rounds",
               std::to_string(kNumRounds),
               "--dataset",
               "openai-messages",
               "--dataset-path",
               dataset,
               "--sessions",
               std::to_string(level.sessions),
               "--warmup",
               "0",
               "--output",
               dir.File("records.jsonl"),
               "--summary",
               dir.File("summary.json"),
               "--no-count-prompts"};
  spec.stdout_path = dir.File("runner.log");
  kvbench::PosixProcessLauncher launcher;
  auto process = launcher.Launch(spec);
  if (!process.ok()) return false;
  auto exit = (*process)->Wait(absl::Seconds(120));
  if (!exit.ok() || !exit->success()) {
    std::fprintf(stderr, "kv-runner failed; log:\n%s\n", dir.ReadFile("runner.log").c_str());
    return false;
  }
  return true;
}

// (user_id, n) → first_byte_s, from the target's GET /stamps.
std::map<std::pair<std::string, int>, double> FetchStamps(const std::string& url) {
  std::map<std::pair<std::string, int>, double> stamps;
  auto client = kvbench::CurlHttpClient::Create();
  if (!client.ok()) return stamps;
  auto response = (*client)->Get(url + "/stamps");
  if (!response.ok()) return stamps;
  std::istringstream lines(response->body);
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json stamp = nlohmann::json::parse(line);
    stamps[{stamp.at("user_id").get<std::string>(), stamp.at("n").get<int>()}] =
        stamp.at("first_byte_s").get<double>();
  }
  return stamps;
}

Figures Measure(const kvbench::testing::TempDir& dir, const std::string& url) {
  Figures figures;
  const double origin =
      nlohmann::json::parse(dir.ReadFile("summary.json")).at("clock_origin_s").get<double>();
  const auto stamps = FetchStamps(url);
  std::ifstream records(dir.File("records.jsonl"));
  double first = 1e300, last = 0;
  for (std::string line; std::getline(records, line);) {
    auto record = kvbench::runner::ParseJsonLine(line);
    if (!record.ok() || !record->ok()) {
      ++figures.failed;
      continue;
    }
    ++figures.completed;
    first = std::min(first, record->scheduled_s);
    last = std::max(last, record->end_s);
    auto stamp = stamps.find({record->user_id, record->round});
    if (record->first_token_s && stamp != stamps.end()) {
      figures.overhead_us.push_back((origin + *record->first_token_s - stamp->second) * 1e6);
    }
  }
  if (last > first)
    figures.requests_per_s = static_cast<double>(figures.completed) / (last - first);
  return figures;
}

void RunWrk(const std::string& url) {
  if (std::system("command -v wrk >/dev/null 2>&1") != 0) {
    std::printf("wrk: not on PATH; install it with `apt-get install wrk` (deploy/setup.sh)\n");
    return;
  }
  const std::string command = "wrk -t2 -c64 -d5s " + url + "/v1/chat/completions 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    std::string line(buffer);
    if (line.find("Requests/sec") != std::string::npos) {
      std::printf("wrk -t2 -c64 -d5s (GET, same stream): %s", line.c_str());
    }
  }
  pclose(pipe);
}

}  // namespace

int main() {
  kvbench::testing::TempDir dir;
  const std::string dataset = dir.WriteFile("dataset.jsonl", SyntheticDataset());
  std::printf("runner roofline: %d events/request (%d content chunks), %d rounds/user\n",
              kEventsPerRequest, kContentChunks, kNumRounds);
  std::printf("%6s %8s %8s %8s %12s %12s %14s %14s\n", "users", "sessions", "requests", "failed",
              "requests/s", "events/s", "overhead_p50us", "overhead_p99us");
  const std::vector<Level> levels = {{1, 400}, {64, 3000}, {512, 6000}};
  for (const Level& level : levels) {
    // A fresh target per level: its per-user counters restart with the runner's user ids.
    kvbench::testing::SimProcess target = StartTarget();
    if (!target.Start()) {
      std::fprintf(stderr, "%s\n", target.error().c_str());
      return 1;
    }
    if (!RunRunner(target.url(), level, dataset, dir)) return 1;
    Figures figures = Measure(dir, target.url());
    const double p50 = kvbench::bench::Percentile(figures.overhead_us, 50);
    const double p99 = kvbench::bench::Percentile(figures.overhead_us, 99);
    std::printf("%6d %8d %8zu %8zu %12.0f %12.0f %14.1f %14.1f\n", level.users, level.sessions,
                figures.completed, figures.failed, figures.requests_per_s,
                figures.requests_per_s * kEventsPerRequest, p50, p99);
  }
  kvbench::testing::SimProcess target = StartTarget();
  if (!target.Start()) return 1;
  RunWrk(target.url());
  return 0;
}
