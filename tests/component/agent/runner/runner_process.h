#pragma once

// kv-runner as a child process for the component tests: its stdout and stderr in `dir`
// (runner.out, runner.err).

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "agent/runner/request_record.h"
#include "common/process/posix_process_launcher.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {

inline std::unique_ptr<Process> LaunchRunner(const std::vector<std::string>& argv,
                                             const TempDir& dir) {
  PosixProcessLauncher launcher;
  ProcessSpec spec;
  spec.name = "kv-runner";
  spec.argv = argv;
  spec.stdout_path = dir.File("runner.out");
  spec.stderr_path = dir.File("runner.err");
  auto process = launcher.Launch(spec);
  REQUIRE(process.ok());
  return std::move(*process);
}

// The model every runner test serves (kvsim-vllm knows its tokenizer and chat template).
inline constexpr char kRunnerTestModel[] = "meta-llama/Llama-3.1-8B-Instruct";

// The demo's tau2-bench airline file (its README in deploy/examples/datasets).
inline constexpr char kAirlineDataset[] = KV_DEMO_DATASETS "/tau2_airline_gpt-4.1_results.json";

// How one kv-runner process ended.
struct RunnerRun {
  ExitStatus exit;
  std::string log;  // its stderr
};

// Launches kv-runner with `argv` and waits (up to `timeout`) for it to exit on its own.
inline RunnerRun RunRunnerToExit(const std::vector<std::string>& argv, const TempDir& dir,
                                 absl::Duration timeout = absl::Seconds(120)) {
  auto process = LaunchRunner(argv, dir);
  auto exit = process->Wait(timeout);
  REQUIRE(exit.ok());
  return RunnerRun{*exit, dir.ReadFile("runner.err")};
}

// The request records kv-runner wrote to `dir`/requests.jsonl, each line parsed (a line that does
// not parse, or a last line cut short, fails the test).
inline std::vector<runner::RequestRecord> ReadRunnerRecords(const TempDir& dir) {
  std::vector<runner::RequestRecord> records;
  const std::string text = dir.ReadFile("requests.jsonl");
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    auto record = runner::ParseJsonLine(line);
    INFO(std::string(line));
    REQUIRE(record.ok());
    records.push_back(*record);
  }
  CHECK((text.empty() || text.back() == '\n'));  // whole lines only
  return records;
}

}  // namespace kvbench::testing
