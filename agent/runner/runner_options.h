#pragma once

#include <cstdint>
#include <string>

#include "absl/time/time.h"

namespace kvbench::runner {

// Defaults of kv-runner's flags, as the methodology fixes them (DESIGN.md "Replay semantics").
inline constexpr int kDefaultMinChunkRounds = 5;
inline constexpr int kDefaultWarmupRequests = 4;
inline constexpr int kDefaultRequestTimeoutSeconds =
    64800;  // 18 h: a request never times out early
inline constexpr int kDefaultAgenticMaxAttempts = 3;
// Output tokens of one warmup request.
inline constexpr int kWarmupMaxTokens = 8;
inline constexpr uint64_t kDefaultSeed = 0;
// The replay's HTTP client's I/O threads (BeastHttpClient): one keeps up with a null target
// faster than the target itself on the hosts kvbench runs on (tests/bench/runner_http_ceiling.sh).
inline constexpr int kDefaultIoThreads = 1;

// kv-runner's effective replay configuration (flags, validated in main).
struct RunnerOptions {
  std::string base_url;  // --base-url: http://host:port or http://host:port/v1 (base_url.h)
  std::string model;
  int concurrency = 1;  // --num-users: slots, users running at once
  int num_rounds = 0;
  std::string dataset;  // dataset code
  std::string dataset_path;
  bool agentic_traces = false;  // accepted; the replay always sends the recorded messages
  int min_chunk_rounds = kDefaultMinChunkRounds;
  int warmup = kDefaultWarmupRequests;
  absl::Duration request_timeout = absl::Seconds(kDefaultRequestTimeoutSeconds);
  std::string tokenizer;         // accepted; /tokenize counts with the served model's tokenizer
  int isl = 0;                   // 0 = no depth limit
  int osl = 0;                   // 0 = recorded output length
  uint64_t seed = kDefaultSeed;  // warmup prompts and the choice of users (user_selection.h)
  int sessions = 0;              // users to replay; 0 = concurrency
  std::string output_path;       // requests JSONL; empty = none
  std::string summary_path;      // summary JSON; empty = none
  std::string prompts_path;  // --prompts: counted prompts JSONL (counted_prompts.h); empty = none
  std::string ready_file;    // --ready-file: the warm-up gate (ready_gate.h); empty = no wait
  // --sim-clock: the scenario's shared simulated clock (SimClock); stamps are then simulated time
  // × its scale (ReplayClock). Empty: wall time.
  std::string sim_clock;
  bool count_prompts = true;  // count prompts via /tokenize before the run (reuse opportunity)
  int io_threads = kDefaultIoThreads;
  // gpt-oss agentic tool-call handling (gpt_oss_agentic.h).
  bool enable_agentic_tools = false;
  bool ask_mode = false;
  // The server runs with --enable-auto-tool-choice and a --tool-call-parser, so it accepts
  // tool_choice "auto" for any model (CheckAskModeSupported).
  bool server_auto_tool_choice = false;
  bool sanitize_harmony_tokens = false;
  int agentic_max_attempts = kDefaultAgenticMaxAttempts;

  int requested_sessions() const { return sessions > 0 ? sessions : concurrency; }
};

}  // namespace kvbench::runner
