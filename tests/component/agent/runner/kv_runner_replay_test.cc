// kv-runner as users run it: a real process replaying the tau2 airline sessions through a real
// kvsim-vllm on loopback.

#include <signal.h>

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "agent/runner/request_record.h"
#include "common/http/curl_http_client.h"
#include "common/process/posix_process_launcher.h"
#include "tests/component/agent/runner/runner_process.h"
#include "tests/support/sim_process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

using Json = nlohmann::json;

// The airline file at num_rounds 5 (pinned by the loader tests too).
constexpr int kAirlineUsers = 32;

std::unique_ptr<SimProcess> StartVllm(const std::string& time_scale) {
  auto sim = std::make_unique<SimProcess>(
      "kvsim-vllm",
      std::vector<std::string>{KV_SIM_VLLM_PATH, "serve", kRunnerTestModel, "--host", "127.0.0.1",
                               "--port", "0", "--sim-time-scale", time_scale, "--sim-load-seconds",
                               "0"},
      "Starting vLLM API server on ");
  INFO(sim->error());
  REQUIRE(sim->Start());
  return sim;
}

std::vector<std::string> RunnerArgs(const std::string& url, const TempDir& dir, int sessions) {
  return {KV_RUNNER_PATH,
          "--base-url",
          url,
          "--model",
          kRunnerTestModel,
          "--num-users",
          "4",
          "--num-rounds",
          "5",
          "--dataset",
          "tau2-bench-v1",
          "--dataset-path",
          kAirlineDataset,
          "--agentic-traces",
          "--sessions",
          std::to_string(sessions),
          "--output",
          dir.File("requests.jsonl"),
          "--summary",
          dir.File("summary.json")};
}

// Rounds of each user are 1, 2, ... in finishing order, each scheduled after the previous ended.
void CheckRoundOrder(const std::vector<runner::RequestRecord>& records) {
  std::map<std::string, const runner::RequestRecord*> last;
  for (const runner::RequestRecord& record : records) {
    INFO(record.user_id << " round " << record.round);
    auto it = last.find(record.user_id);
    int expected = it == last.end() ? 1 : it->second->round + 1;
    CHECK(record.round == expected);
    if (it != last.end()) CHECK(record.scheduled_s >= it->second->end_s);
    CHECK(record.sent_s >= record.scheduled_s);
    CHECK(record.end_s >= record.sent_s);
    last[record.user_id] = &record;
  }
}

TEST_CASE("Runner inspect prints the airline ceiling as JSON", "[Runner][Replay]") {
  TempDir dir;
  const RunnerRun run =
      RunRunnerToExit({KV_RUNNER_PATH, "inspect", "--dataset", "tau2-bench-v1", "--dataset-path",
                       kAirlineDataset, "--num-rounds", "5", "--json"},
                      dir, absl::Seconds(60));
  CHECK(run.exit.success());
  Json stats = Json::parse(dir.ReadFile("runner.out"));
  CHECK(stats["sessions"] == 20);
  CHECK(stats["rounds"] == 206);
  CHECK(stats["virtual_users"] == kAirlineUsers);
}

TEST_CASE("Runner replays the airline sessions with achieved below requested", "[Runner][Replay]") {
  auto sim = StartVllm("0.01");
  TempDir dir;
  std::vector<std::string> args = RunnerArgs(sim->url(), dir, 40);
  const RunnerRun run = RunRunnerToExit(args, dir, absl::Seconds(100));
  INFO(run.log);
  REQUIRE(run.exit.success());

  std::vector<runner::RequestRecord> records = ReadRunnerRecords(dir);
  CHECK(records.size() == kAirlineUsers * 5);  // one line per request
  std::set<std::string> users;
  for (const auto& record : records) {
    users.insert(record.user_id);
    CHECK(record.ok());
    CHECK(record.http_status == 200);
    CHECK(record.ttft_s.has_value());
    CHECK(record.prompt_tokens > 0);
    CHECK(record.user_id.rfind("warmup", 0) != 0);  // warmup is not recorded
  }
  CHECK(users.size() == kAirlineUsers);
  CheckRoundOrder(records);

  Json summary = Json::parse(dir.ReadFile("summary.json"));
  CHECK(summary["sessions_requested"] == 40);
  CHECK(summary["sessions_achieved"] == kAirlineUsers);
  CHECK(summary["sessions_dataset_ceiling"] == kAirlineUsers);
  CHECK(summary["sessions_total"] == kAirlineUsers);
  CHECK(summary["sessions_complete"] == kAirlineUsers);
  CHECK(summary["sessions_error"] == 0);
  CHECK(summary["failed_requests"] == 0);
  CHECK(summary["requests_completed"] == kAirlineUsers * 5);
  CHECK(summary["ttft_p50_s"].is_number());
  // Prompts were counted through the simulator's /tokenize: airline users grow their own prefix
  // round after round, and all of them share the rebuilt policy prompt.
  REQUIRE(summary["reuse_same_user_pct"].is_number());
  CHECK(summary["reuse_same_user_pct"].get<double>() > 50);
  CHECK(summary["reuse_any_user_pct"].get<double>() >=
        summary["reuse_same_user_pct"].get<double>());
}

// With an ISL the users are chosen among those every prompt of which fits, so none is
// cut; the ones that do not fit are left out, and the ceiling under ISL counts the ones that do.
TEST_CASE("Runner ISL: only users whose every prompt fits run, none cut", "[Runner][Replay]") {
  auto sim = StartVllm("0.01");
  TempDir dir;
  constexpr int kIsl = 6000;
  std::vector<std::string> args = RunnerArgs(sim->url(), dir, 40);
  args.insert(args.end(), {"--isl", std::to_string(kIsl)});
  const RunnerRun run = RunRunnerToExit(args, dir, absl::Seconds(100));
  INFO(run.log);
  REQUIRE(run.exit.success());
  std::vector<runner::RequestRecord> records = ReadRunnerRecords(dir);
  REQUIRE_FALSE(records.empty());
  for (const auto& record : records) {
    CHECK(record.ok());
    CHECK(record.prompt_tokens <= kIsl);
  }
  CheckRoundOrder(records);
  Json summary = Json::parse(dir.ReadFile("summary.json"));
  CHECK(summary["sessions_truncated_by_isl"].get<int>() == 0);
  CHECK(summary["sessions_incomplete"] == 0);
  CHECK(summary["sessions_error"] == 0);
  const int fitting = summary["dataset_ceiling_under_isl"].get<int>();
  CHECK(fitting < kAirlineUsers);  // some users do not fit: the case is tested
  CHECK(summary["sessions_complete"].get<int>() == fitting);
  CHECK(records.size() == static_cast<size_t>(fitting) * 5);
}

TEST_CASE("Runner sends x-user-id on every request: the server sees each user's rounds",
          "[Runner][Replay]") {
  SimProcess target("kv-null-sse-target", {KV_NULL_SSE_TARGET_PATH, "--port", "0"},
                    "null SSE target listening on ");
  INFO(target.error());
  REQUIRE(target.Start());
  TempDir dir;
  // The null target has no /tokenize: prompts go uncounted (a warning), the replay goes on.
  const RunnerRun run = RunRunnerToExit(RunnerArgs(target.url(), dir, 8), dir, absl::Seconds(60));
  INFO(run.log);
  REQUIRE(run.exit.success());
  std::map<std::string, int> sent;
  for (const auto& record : ReadRunnerRecords(dir)) ++sent[record.user_id];
  CHECK(sent.size() == 8);

  auto client = CurlHttpClient::Create();
  REQUIRE(client.ok());
  auto stamps = (*client)->Get(target.url() + "/stamps");
  REQUIRE(stamps.ok());
  std::map<std::string, int> seen;
  int warmups = 0;
  for (absl::string_view line : absl::StrSplit(stamps->body, '\n', absl::SkipEmpty())) {
    std::string user = Json::parse(line)["user_id"];
    if (user.rfind("warmup-", 0) == 0) {
      ++warmups;
    } else {
      ++seen[user];
    }
  }
  CHECK(seen == sent);
  CHECK(warmups == 4);  // the default warmup, each under its own id
  Json summary = Json::parse(dir.ReadFile("summary.json"));
  CHECK(summary["reuse_same_user_pct"].is_null());
}

TEST_CASE("Runner on SIGTERM leaves valid JSONL and a summary with incomplete users",
          "[Runner][Replay]") {
  auto sim = StartVllm("1");  // real-time simulated latencies: the replay takes a while
  TempDir dir;
  auto process = LaunchRunner(RunnerArgs(sim->url(), dir, 12), dir);
  REQUIRE(WaitFor([&] { return !dir.ReadFile("requests.jsonl").empty(); }, absl::Seconds(60)));
  REQUIRE(process->Signal(SIGTERM).ok());
  auto exit = process->Wait(absl::Seconds(60));
  REQUIRE(exit.ok());
  INFO(dir.ReadFile("runner.err"));
  CHECK_FALSE(exit->signaled);
  CHECK(exit->code == 7);  // CANCELLED: stopped, output complete

  std::vector<runner::RequestRecord> records = ReadRunnerRecords(dir);
  CHECK(records.size() >= 1);
  CHECK(records.size() < 12 * 5);
  CheckRoundOrder(records);
  Json summary = Json::parse(dir.ReadFile("summary.json"));
  CHECK(summary["sessions_requested"] == 12);
  CHECK(summary["sessions_total"] == 12);
  CHECK(summary["sessions_incomplete"].get<int>() > 0);
  CHECK(summary["sessions_error"] == 0);
  // Exclusive outcomes: those stopped before their first send are not_started.
  CHECK(summary["sessions_complete"].get<int>() + summary["sessions_incomplete"].get<int>() +
            summary["sessions_not_started"].get<int>() ==
        12);
}

}  // namespace
}  // namespace kvbench::testing
