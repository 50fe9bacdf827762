#pragma once

#include <string>
#include <vector>

#include "kvbench/v1/job.pb.h"

namespace kvbench::runner {

// Where one scenario's kv-runner talks to and writes: filled by the agent's work-dir layout.
struct RunnerPaths {
  std::string runner_binary;  // argv[0]
  std::string base_url;       // the endpoint under test (the replica or the Caddy front)
  std::string dataset_path;   // resolved dataset file or folder
  std::string output_path;    // requests JSONL
  std::string summary_path;   // summary JSON
  std::string prompts_path;   // counted prompts JSONL; empty = not asked for
  std::string ready_file;     // the warm-up gate's file (ready_gate.h); empty = no gate
  std::string sim_clock;      // a simulated engine's shared clock (SimClock); empty = none
};

// True for the gpt-oss family (the only models that get the agentic tool-call flags).
bool IsGptOssModel(const std::string& model);

// The exact kv-runner command line of one scenario (pure), with DESIGN.md's fixed flags:
//   RUNNER --base-url U --model M --num-users C --num-rounds R --dataset CODE --dataset-path P
//   --agentic-traces --min-chunk-rounds 5 --warmup 4 --request-timeout 64800 --tokenizer M
//   --isl I --osl O --sessions S [--seed N] --output J --summary S [--prompts P]
//   [--ready-file F] [--sim-clock K] (each of the last three only when its path is set)
//   and, for gpt-oss models only, --enable-agentic-tools --ask-mode --sanitize-harmony-tokens
//   --agentic-max-attempts 3 (so every other model's command is byte-identical to one without).
// S is the scenario's sessions, or its concurrency when that is 0.
std::vector<std::string> RunnerArgv(const v1::JobSpec& spec, const v1::Scenario& scenario,
                                    const RunnerPaths& paths);

}  // namespace kvbench::runner
