#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "agent/runner/runner_argv.h"

namespace kvbench::runner {
namespace {

using Argv = std::vector<std::string>;

const RunnerPaths kPaths = {"/bin/kv-runner",
                            "http://127.0.0.1:8000",
                            "/data/airline.json",
                            "/w/requests.jsonl",
                            "/w/summary.json",
                            "",
                            "",
                            ""};

Argv Base(const std::string& model, const std::string& sessions) {
  return {"/bin/kv-runner", "--base-url", "http://127.0.0.1:8000", "--model", model,
          "--num-users", "8", "--num-rounds", "5", "--dataset", "tau2-bench-v1",
          "--dataset-path", "/data/airline.json", "--agentic-traces", "--min-chunk-rounds", "5",
          "--warmup", "4", "--request-timeout", "64800", "--tokenizer", model, "--isl", "0",
          "--osl", "256", "--sessions", sessions, "--output", "/w/requests.jsonl", "--summary",
          "/w/summary.json"};
}

const Argv kGptOssRow = {"--enable-agentic-tools", "--ask-mode", "--sanitize-harmony-tokens",
                         "--agentic-max-attempts", "3"};

TEST_CASE("RunnerArgv pins the methodology's command line", "[Runner]") {
  struct Row {
    std::string model;
    int sessions;
    std::string expected_sessions;
    bool gpt_oss;
  };
  std::vector<Row> rows = {
      {"meta-llama/Llama-3.1-8B-Instruct", 0, "8", false},
      {"Qwen/Qwen3-32B", 20, "20", false},
      {"openai/gpt-oss-20b", 0, "8", true},
      {"openai/GPT-OSS-120b", 12, "12", true},
  };
  for (const Row& row : rows) {
    INFO(row.model);
    v1::JobSpec spec;
    spec.set_model(row.model);
    spec.set_num_rounds(5);
    spec.set_osl(256);
    spec.mutable_dataset()->set_code("tau2-bench-v1");
    v1::Scenario scenario;
    scenario.set_concurrency(8);
    scenario.set_sessions(row.sessions);
    Argv expected = Base(row.model, row.expected_sessions);
    // Non-gpt-oss: byte-identical to the command without the gpt-oss row.
    if (row.gpt_oss) expected.insert(expected.end(), kGptOssRow.begin(), kGptOssRow.end());
    CHECK(RunnerArgv(spec, scenario, kPaths) == expected);
    CHECK(IsGptOssModel(row.model) == row.gpt_oss);
  }
}

TEST_CASE("RunnerArgv passes the seed when the job sets one", "[Runner]") {
  v1::JobSpec spec;
  spec.set_model("m");
  spec.set_seed(42);
  v1::Scenario scenario;
  scenario.set_concurrency(1);
  Argv argv = RunnerArgv(spec, scenario, kPaths);
  auto it = std::find(argv.begin(), argv.end(), "--seed");
  REQUIRE(it != argv.end());
  CHECK(*(it + 1) == "42");
}

TEST_CASE("RunnerArgv passes --prompts, --ready-file and --sim-clock when their paths are set",
          "[Runner]") {
  v1::JobSpec spec;
  spec.set_model("m");
  v1::Scenario scenario;
  scenario.set_concurrency(1);
  RunnerPaths paths = kPaths;
  paths.prompts_path = "/w/prompts.jsonl";
  paths.ready_file = "/w/runner.ready";
  paths.sim_clock = "/w/sim-clock";
  Argv argv = RunnerArgv(spec, scenario, paths);
  const Argv tail(argv.end() - 6, argv.end());
  CHECK(tail == Argv{"--prompts", "/w/prompts.jsonl", "--ready-file", "/w/runner.ready",
                     "--sim-clock", "/w/sim-clock"});
}

}  // namespace
}  // namespace kvbench::runner
