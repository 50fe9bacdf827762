// kv-runner's contracts with vLLM, through a real kv-runner and a real kvsim-vllm on loopback:
// the OpenAI-style --base-url ending in /v1, and --ask-mode (tool_choice "auto"), which vLLM takes
// only from harmony models or a server with --enable-auto-tool-choice.

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "agent/runner/request_record.h"
#include "common/process/posix_process_launcher.h"
#include "tests/component/agent/runner/runner_process.h"
#include "tests/support/sim_process.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {
namespace {

using Json = nlohmann::json;

constexpr int kSessions = 4;
constexpr int kRounds = 5;

std::unique_ptr<SimProcess> StartVllm(std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {KV_SIM_VLLM_PATH,
                                   "serve",
                                   kRunnerTestModel,
                                   "--host",
                                   "127.0.0.1",
                                   "--port",
                                   "0",
                                   "--sim-time-scale",
                                   "0.01",
                                   "--sim-load-seconds",
                                   "0",
                                   "--enable-log-requests"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto sim = std::make_unique<SimProcess>("kvsim-vllm", argv, "Starting vLLM API server on ");
  INFO(sim->error());
  REQUIRE(sim->Start());
  return sim;
}

std::vector<std::string> RunnerArgs(const std::string& base_url, const TempDir& dir,
                                    std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {KV_RUNNER_PATH,
                                   "--base-url",
                                   base_url,
                                   "--model",
                                   kRunnerTestModel,
                                   "--num-users",
                                   "4",
                                   "--num-rounds",
                                   std::to_string(kRounds),
                                   "--dataset",
                                   "tau2-bench-v1",
                                   "--dataset-path",
                                   kAirlineDataset,
                                   "--agentic-traces",
                                   "--sessions",
                                   std::to_string(kSessions),
                                   "--output",
                                   dir.File("requests.jsonl"),
                                   "--summary",
                                   dir.File("summary.json")};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

TEST_CASE("kv-runner takes the OpenAI base URL ending in /v1", "[Runner][Contract]") {
  auto sim = StartVllm();
  const std::string base = GENERATE(as<std::string>{}, "/v1", "/v1/", "/", "");
  INFO("--base-url <server>" << base);
  TempDir dir;
  const RunnerRun run = RunRunnerToExit(RunnerArgs(sim->url() + base, dir), dir);
  INFO(run.log);
  REQUIRE(run.exit.success());
  const std::vector<runner::RequestRecord> records = ReadRunnerRecords(dir);
  CHECK(records.size() == kSessions * kRounds);
  for (const runner::RequestRecord& record : records) {
    CHECK(record.ok());
    CHECK(record.http_status == 200);
  }
  // Prompts were counted at the server root's /tokenize (vLLM has none under /v1).
  Json summary = Json::parse(dir.ReadFile("summary.json"));
  CHECK(summary["reuse_same_user_pct"].is_number());
  CHECK_FALSE(absl::StrContains(run.log, "/v1/v1/"));
}

TEST_CASE("kv-runner refuses a base URL with another path before any request",
          "[Runner][Contract]") {
  auto sim = StartVllm();
  TempDir dir;
  const RunnerRun run = RunRunnerToExit(RunnerArgs(sim->url() + "/api/v1", dir), dir);
  CHECK(run.exit.code == 2);
  CHECK_THAT(run.log, Catch::Contains("--base-url \"" + sim->url() + "/api/v1\"") &&
                          Catch::Contains("path \"/api/v1\" is neither empty nor /v1"));
  CHECK_FALSE(absl::StrContains(sim->log(), "Received request"));
}

TEST_CASE(
    "kv-runner refuses --ask-mode for a model that is not gpt-oss unless the server "
    "parses tool calls",
    "[Runner][Contract]") {
  SECTION("refused up front, exit 2, no request sent") {
    auto sim = StartVllm();
    TempDir dir;
    const RunnerRun run =
        RunRunnerToExit(RunnerArgs(sim->url(), dir, {"--enable-agentic-tools", "--ask-mode"}), dir);
    CHECK(run.exit.code == 2);
    CHECK_THAT(run.log, Catch::Contains("--ask-mode sends tool_choice \"auto\"") &&
                            Catch::Contains("--server-auto-tool-choice"));
    CHECK_FALSE(absl::StrContains(sim->log(), "Received request"));
  }
  SECTION("the server really refuses it: every round is a 400 with vLLM's message") {
    auto sim = StartVllm();
    TempDir dir;
    const RunnerRun run = RunRunnerToExit(
        RunnerArgs(sim->url(), dir,
                   {"--enable-agentic-tools", "--ask-mode", "--server-auto-tool-choice"}),
        dir);
    INFO(run.log);
    const std::vector<runner::RequestRecord> records = ReadRunnerRecords(dir);
    REQUIRE_FALSE(records.empty());
    for (const runner::RequestRecord& record : records) {
      CHECK(record.http_status == 400);
      CHECK_FALSE(record.ok());
    }
  }
  SECTION("a server with --enable-auto-tool-choice and a parser takes it") {
    auto sim = StartVllm({"--enable-auto-tool-choice", "--tool-call-parser", "hermes"});
    TempDir dir;
    const RunnerRun run = RunRunnerToExit(
        RunnerArgs(sim->url(), dir,
                   {"--enable-agentic-tools", "--ask-mode", "--server-auto-tool-choice"}),
        dir);
    INFO(run.log);
    REQUIRE(run.exit.success());
    const std::vector<runner::RequestRecord> records = ReadRunnerRecords(dir);
    CHECK(records.size() == kSessions * kRounds);
    for (const runner::RequestRecord& record : records) CHECK(record.http_status == 200);
  }
}

// A kv-runner asking a server for a model it does not serve must not say only "http_404". vLLM
// answers an unknown model 404 (served_models.h cites it); kv-runner then names the models GET
// /v1/models lists, exit 2, before the replay.
TEST_CASE("kv-runner names the served models when the server does not know --model",
          "[Runner][Contract]") {
  SECTION("one served model") {
    auto sim = StartVllm();
    TempDir dir;
    std::vector<std::string> argv = RunnerArgs(sim->url() + "/v1", dir);
    *(std::find(argv.begin(), argv.end(), "--model") + 1) = "llama";
    const RunnerRun run = RunRunnerToExit(argv, dir);
    CHECK(run.exit.code == 2);
    CHECK_THAT(run.log, Catch::Contains("--model llama: " + sim->url() +
                                        " answered 404: it serves no model of that name; it "
                                        "serves meta-llama/Llama-3.1-8B-Instruct (GET /v1/models): "
                                        "pass that as --model"));
    CHECK(dir.ReadFile("requests.jsonl").empty());
  }
  SECTION("several served names") {
    auto sim = StartVllm({"--served-model-name", "llama-8b", "kv/llama"});
    TempDir dir;
    std::vector<std::string> argv = RunnerArgs(sim->url(), dir);
    *(std::find(argv.begin(), argv.end(), "--model") + 1) = "llama";
    const RunnerRun run = RunRunnerToExit(argv, dir);
    CHECK(run.exit.code == 2);
    CHECK_THAT(run.log, Catch::Contains("it serves llama-8b, kv/llama (GET /v1/models): pass one "
                                        "of them as --model"));
  }
}

}  // namespace
}  // namespace kvbench::testing
