// kv-runner: kvbench's native replay client (DESIGN.md "Replay semantics").
//   kv-runner --base-url URL --model M --num-users C --num-rounds R --dataset CODE
//             --dataset-path P [--sessions N] [--isl I] [--osl O] --output J --summary S
//             [--prompts P] [--ready-file F] ...
//   kv-runner inspect --dataset CODE --dataset-path P [--num-rounds N] [--json]
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <iostream>

#include "agent/runner/inspect_command.h"
#include "agent/runner/ready_gate.h"
#include "agent/runner/replay_command.h"
#include "agent/runner/runner_options.h"
#include "common/cli/command_line.h"
#include "common/cli/stop_signals.h"
#include "common/log/logging.h"
#include "common/status/exit_code.h"

namespace {

// Bounds of the numeric flags (a count of 0 or below is refused, not run as nothing): counts of
// users, rounds and requests, token lengths, and the request timeout (a week).
constexpr int kMaxCount = 1'000'000;
constexpr int kMaxTokens = 10'000'000;
constexpr int kMaxTimeoutSeconds = 7 * 24 * 3600;

}  // namespace

int main(int argc, char** argv) {
  using kvbench::runner::RunnerOptions;
  RunnerOptions options;
  int request_timeout_s = kvbench::runner::kDefaultRequestTimeoutSeconds;
  CLI::App app{"kv-runner: replays recorded multi-turn conversations against an OpenAI server"};
  app.add_option("--base-url", options.base_url,
                 "Server under test: http://host:port or its OpenAI base http://host:port/v1");
  app.add_option("--model", options.model, "Served model name");
  app.add_option("--num-users", options.concurrency, "Concurrent users (slots)")
      ->check(CLI::Range(1, kMaxCount));
  app.add_option("--num-rounds", options.num_rounds, "Rounds per virtual user")
      ->check(CLI::Range(0, kMaxCount));
  app.add_option("--dataset", options.dataset, "Dataset code");
  app.add_option("--dataset-path", options.dataset_path, "Dataset file or folder");
  app.add_flag("--agentic-traces", options.agentic_traces, "Replay recorded agentic traces");
  app.add_option("--min-chunk-rounds", options.min_chunk_rounds, "Minimum chunk length")
      ->check(CLI::Range(1, kMaxCount));
  app.add_option("--warmup", options.warmup, "Warmup requests before timing")
      ->check(CLI::Range(0, kMaxCount));
  app.add_option("--request-timeout", request_timeout_s, "Per-request timeout, seconds")
      ->check(CLI::Range(1, kMaxTimeoutSeconds));
  app.add_option("--tokenizer", options.tokenizer, "Tokenizer (the model under test)");
  app.add_option("--isl", options.isl, "Prompt token limit per round (0 = none)")
      ->check(CLI::Range(0, kMaxTokens));
  app.add_option("--osl", options.osl, "Output tokens per request (0 = recorded)")
      ->check(CLI::Range(0, kMaxTokens));
  app.add_option("--seed", options.seed,
                 "Seed of warmup prompts and of the users chosen when --sessions is below the "
                 "dataset's ceiling");
  app.add_option("--sessions", options.sessions, "Virtual users to replay (0 = --num-users)")
      ->check(CLI::Range(0, kMaxCount));
  app.add_option("--output", options.output_path, "Per-request JSONL");
  app.add_option("--summary", options.summary_path, "Summary JSON");
  app.add_option("--prompts", options.prompts_path,
                 "Counted prompts JSONL (user_id, round, tokens, chunk_keys), written before the "
                 "clock starts when prompts are counted");
  app.add_option("--ready-file", options.ready_file,
                 "After warm-up and prompt counting, create this file and wait for SIGUSR1 before "
                 "starting the clock");
  app.add_flag("--count-prompts,!--no-count-prompts", options.count_prompts,
               "Count prompts via /tokenize before the run (reuse opportunity; forced by --isl)");
  app.add_option("--sim-clock", options.sim_clock,
                 "Stamp by this shared simulated clock file (kvsim-vllm --sim-clock)");
  app.add_option("--io-threads", options.io_threads, "HTTP client I/O threads")
      ->check(CLI::Range(1, 256));
  app.add_flag("--enable-agentic-tools", options.enable_agentic_tools, "gpt-oss tool calls");
  app.add_flag("--ask-mode", options.ask_mode, "gpt-oss ask mode (tool_choice auto)");
  app.add_flag("--server-auto-tool-choice", options.server_auto_tool_choice,
               "The server has --enable-auto-tool-choice and a --tool-call-parser (--ask-mode "
               "for a model other than gpt-oss)");
  app.add_flag("--sanitize-harmony-tokens", options.sanitize_harmony_tokens, "gpt-oss harmony");
  app.add_option("--agentic-max-attempts", options.agentic_max_attempts, "gpt-oss attempts")
      ->check(CLI::Range(1, 100));

  std::string inspect_dataset, inspect_path;
  int inspect_rounds = 0;
  int inspect_min_chunk = kvbench::runner::kDefaultMinChunkRounds;
  bool inspect_json = false;
  CLI::App* inspect = app.add_subcommand("inspect", "Print a dataset's statistics");
  inspect->add_option("--dataset", inspect_dataset, "Dataset code")->required();
  inspect->add_option("--dataset-path", inspect_path, "Dataset file or folder")->required();
  inspect->add_option("--num-rounds", inspect_rounds, "Rounds per virtual user")
      ->check(CLI::Range(0, kMaxCount));
  inspect->add_option("--min-chunk-rounds", inspect_min_chunk, "Minimum chunk length")
      ->check(CLI::Range(1, kMaxCount));
  inspect->add_flag("--json", inspect_json, "One JSON object");

  if (int code = kvbench::ParseCommandLine(&app, argc, argv); code >= 0) return code;
  absl::Status status;
  if (inspect->parsed()) {
    status = kvbench::runner::RunInspectCommand(inspect_dataset, inspect_path, inspect_rounds,
                                                inspect_min_chunk, inspect_json, std::cout);
  } else {
    options.request_timeout = absl::Seconds(request_timeout_s);
    kvbench::StopSource* go =
        options.ready_file.empty() ? nullptr : kvbench::runner::InstallGoSignal();
    status =
        kvbench::runner::RunReplayCommand(options, kvbench::StopOnSignals({SIGINT, SIGTERM}), go);
  }
  if (!status.ok()) std::cerr << "kv-runner: " << status.message() << "\n";
  return kvbench::ExitCodeForStatus(status);
}
