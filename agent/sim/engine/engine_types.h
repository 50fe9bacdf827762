#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kvbench::sim {

enum class FinishReason { kStop, kLength, kAbort };

// Simulated seconds since the engine started (the engine's clock; see SimEngine).
struct RequestTimings {
  double arrival_s = 0;     // Submit()
  double scheduled_s = -1;  // first scheduled (preemptions ignored, as vLLM)
  double first_token_s = -1;
  double finished_s = -1;
};

// What the engine reports about one request, on the engine thread, in order: one output per
// engine step that produced tokens for it, the first with `first` set, the last with `finished`.
struct RequestOutput {
  std::vector<uint32_t> new_tokens;
  bool first = false;
  bool finished = false;
  FinishReason finish_reason = FinishReason::kStop;
  int prompt_tokens = 0;
  int output_tokens = 0;           // generated so far
  int local_cached_tokens = 0;     // prompt tokens from the GPU prefix cache (set from `first`)
  int external_cached_tokens = 0;  // prompt tokens loaded from the external cache
  RequestTimings timings;
  // Non-empty when the request failed (e.g. it needs more KV blocks than the whole GPU has).
  std::string error;
};

struct EngineRequest {
  std::string id;
  std::vector<uint32_t> prompt;
  int max_tokens = 16;      // upper bound of generated tokens
  bool ignore_eos = false;  // true: exactly max_tokens are generated
  // What the output sampler draws this request's length and tokens from; empty: `id`. The
  // lockstep driver keys it by content, since ids follow arrival order (LockstepSimEngine).
  std::string sample_key;
  std::function<void(const RequestOutput&)> on_output;
};

// Counters and gauges the engine reports for /metrics (vLLM's names; see kvsim-vllm's metrics).
// Called on the engine thread.
class EngineObserver {
 public:
  struct StepStats {
    int running = 0;
    int waiting = 0;
    double kv_cache_usage = 0;  // blocks referenced by running requests / total (0..1)
    int scheduled_tokens = 0;   // tokens computed this step
  };
  struct FinishedRequest {
    int prompt_tokens = 0;
    int generation_tokens = 0;
    int max_tokens = 0;
    FinishReason reason = FinishReason::kStop;
    RequestTimings timings;
    std::vector<double> inter_token_s;  // gaps between consecutive token outputs
  };

  virtual ~EngineObserver() = default;
  virtual void OnStep(const StepStats& stats) = 0;
  // A new (not preempted) request looked up in the GPU prefix cache: tokens queried and hit.
  virtual void OnPrefixCacheLookup(int64_t queries, int64_t hits) = 0;
  // The same against the external cache (only with a connector); what `queries` counts follows
  // EngineConfig::external_query_counting.
  virtual void OnExternalCacheLookup(int64_t queries, int64_t hits) = 0;
  virtual void OnPreemption() = 0;
  virtual void OnRequestFinished(const FinishedRequest& request) = 0;
  // kvsim's own, not vLLM's: how many real seconds (>= 0) after its due time a step's
  // outputs went out. Called by the real-time driver (ThreadedSimEngine) only, never by the core,
  // hence the default.
  virtual void OnStepLateness(double real_seconds) { (void)real_seconds; }
};

}  // namespace kvbench::sim
