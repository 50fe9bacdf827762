// Equal work across tiers through a real kv-runner and a real kvsim-vllm on loopback: the seeded choice of
// virtual users below the ceiling, and the warm-up gate (--ready-file, SIGUSR1).

#include <signal.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "agent/datasets/dataset_loader.h"
#include "common/http/curl_http_client.h"
#include "common/process/posix_process_launcher.h"
#include "tests/component/agent/runner/runner_process.h"
#include "tests/support/sim_process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

using Json = nlohmann::json;

constexpr char kAgentTraces[] = KV_TEST_DATASETS "/lmcache-agent-trace";
constexpr char kSammshen[] = KV_TEST_DATASETS "/tau2_airline_gpt-4.1_lmcache_format.jsonl";

std::unique_ptr<SimProcess> StartPlainVllm() {
  auto sim = std::make_unique<SimProcess>(
      "kvsim-vllm",
      std::vector<std::string>{KV_SIM_VLLM_PATH, "serve", kRunnerTestModel, "--host", "127.0.0.1",
                               "--port", "0", "--sim-time-scale", "0.005", "--sim-load-seconds",
                               "0"},
      "Starting vLLM API server on ");
  INFO(sim->error());
  REQUIRE(sim->Start());
  return sim;
}

std::vector<std::string> Args(const std::string& url, const TempDir& dir, const std::string& code,
                              const std::string& path, int sessions, int seed) {
  return {KV_RUNNER_PATH,
          "--base-url",
          url,
          "--model",
          kRunnerTestModel,
          "--num-users",
          "2",
          "--num-rounds",
          "5",
          "--dataset",
          code,
          "--dataset-path",
          path,
          "--sessions",
          std::to_string(sessions),
          "--seed",
          std::to_string(seed),
          "--output",
          dir.File("requests.jsonl"),
          "--summary",
          dir.File("summary.json"),
          "--prompts",
          dir.File("prompts.jsonl")};
}

void RunRunnerToSuccess(const std::vector<std::string>& argv, const TempDir& dir) {
  auto process = LaunchRunner(argv, dir);
  auto exit = process->Wait(absl::Seconds(100));
  REQUIRE(exit.ok());
  INFO(dir.ReadFile("runner.err"));
  REQUIRE(exit->success());
}

std::vector<Json> Lines(const TempDir& dir, const std::string& name) {
  std::vector<Json> lines;
  for (absl::string_view line : absl::StrSplit(dir.ReadFile(name), '\n', absl::SkipEmpty())) {
    lines.push_back(Json::parse(line));
  }
  return lines;
}

// The user ids of summary.json's planned_users, in order.
std::vector<std::string> PlannedIds(const TempDir& dir) {
  std::vector<std::string> ids;
  const Json summary = Json::parse(dir.ReadFile("summary.json"));
  for (const Json& user : summary["planned_users"]) {
    ids.push_back(user["user_id"]);
  }
  return ids;
}

// Σ over the series of a counter in the server's /metrics.
double CounterSum(const std::string& url, const std::string& name) {
  auto http = CurlHttpClient::Create();
  REQUIRE(http.ok());
  auto response = (*http)->Get(url + "/metrics");
  REQUIRE(response.ok());
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(response->body, '\n')) {
    if (!absl::StartsWith(line, name + "{") && !absl::StartsWith(line, name + " ")) continue;
    double value = 0;
    if (absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) sum += value;
  }
  return sum;
}

TEST_CASE("kv-runner below the ceiling runs a seeded spread over the agent-trace kinds",
          "[Runner][Replay]") {
  // The folder's sessions by kind (its subfolders), as the loader reads them.
  auto dataset = datasets::LoadDataset("lmcache-agent-trace", kAgentTraces);
  REQUIRE(dataset.ok());
  std::map<std::string, std::string> kind_of;  // session id → kind
  for (const datasets::Session& session : dataset->sessions) {
    kind_of[session.id] =
        std::filesystem::path(session.rounds.front().origin).parent_path().filename().string();
  }
  auto sim = StartPlainVllm();
  TempDir first, again, other;
  RunRunnerToSuccess(Args(sim->url(), first, "lmcache-agent-trace", kAgentTraces, 4, 0), first);
  RunRunnerToSuccess(Args(sim->url(), again, "lmcache-agent-trace", kAgentTraces, 4, 0), again);
  RunRunnerToSuccess(Args(sim->url(), other, "lmcache-agent-trace", kAgentTraces, 4, 11), other);

  // Both kinds of trace were replayed (requests.jsonl), not the first 4 users in folder order
  // (all magagent).
  std::map<std::string, std::set<std::string>> sessions_by_kind;
  for (const Json& record : Lines(first, "requests.jsonl")) {
    sessions_by_kind[kind_of.at(record["session_id"])].insert(record["session_id"]);
  }
  CHECK(sessions_by_kind["magagent"].size() == 2);
  CHECK(sessions_by_kind["miniswe"].size() == 2);
  const Json summary = Json::parse(first.ReadFile("summary.json"));
  CHECK(summary["selection"] ==
        "4 of 17 virtual users, seeded (seed 0), spread over 2 trace kinds and 4 sessions");
  CHECK(summary["dataset_ceiling"] == 17);
  CHECK(summary["sessions_total"] == 4);
  // Reproducible from the seed; another seed, other users.
  CHECK(PlannedIds(first).size() == 4);
  CHECK(PlannedIds(again) == PlannedIds(first));
  CHECK(PlannedIds(other) != PlannedIds(first));
  // The counted prompts went to --prompts: every round of every chosen user.
  CHECK(Lines(first, "prompts.jsonl").size() == 4 * 5);
}

TEST_CASE("kv-runner with --ready-file waits after its warm-up until SIGUSR1", "[Runner][Replay]") {
  auto sim = StartPlainVllm();
  TempDir dir;
  std::vector<std::string> args = Args(sim->url(), dir, "sammshen", kSammshen, 2, 0);
  args.insert(args.end(), {"--ready-file", dir.File("ready")});
  auto runner = LaunchRunner(args, dir);
  REQUIRE(WaitFor([&] { return std::filesystem::exists(dir.File("ready")); }, absl::Seconds(60)));
  // At the gate: the 4 warm-up requests are done, no replayed request was sent, the prompts
  // were counted, and the runner keeps waiting.
  CHECK(CounterSum(sim->url(), "vllm:request_success_total") == 4);
  CHECK(dir.ReadFile("requests.jsonl").empty());
  CHECK_FALSE(dir.ReadFile("prompts.jsonl").empty());
  CHECK_FALSE(runner->Wait(absl::Milliseconds(300)).ok());
  CHECK(CounterSum(sim->url(), "vllm:request_success_total") == 4);

  REQUIRE(runner->Signal(SIGUSR1).ok());
  auto exit = runner->Wait(absl::Seconds(100));
  REQUIRE(exit.ok());
  INFO(dir.ReadFile("runner.err"));
  REQUIRE(exit->success());
  const size_t sent = Lines(dir, "requests.jsonl").size();
  CHECK(sent == 2 * 5);
  CHECK(CounterSum(sim->url(), "vllm:request_success_total") == 4 + sent);
}

TEST_CASE("kv-runner with --ready-file stops cleanly on SIGTERM at the gate", "[Runner][Replay]") {
  auto sim = StartPlainVllm();
  TempDir dir;
  std::vector<std::string> args = Args(sim->url(), dir, "sammshen", kSammshen, 2, 0);
  args.insert(args.end(), {"--ready-file", dir.File("ready")});
  auto runner = LaunchRunner(args, dir);
  REQUIRE(WaitFor([&] { return std::filesystem::exists(dir.File("ready")); }, absl::Seconds(60)));
  REQUIRE(runner->Signal(SIGTERM).ok());
  auto exit = runner->Wait(absl::Seconds(30));
  REQUIRE(exit.ok());
  CHECK(exit->code == 7);  // cancelled
  CHECK(dir.ReadFile("requests.jsonl").empty());
}

}  // namespace
}  // namespace kvbench::testing
