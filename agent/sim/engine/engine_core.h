#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/sim/engine/engine_config.h"
#include "agent/sim/engine/engine_types.h"
#include "agent/sim/engine/external_kv_cache.h"
#include "agent/sim/engine/kv_block_manager.h"
#include "agent/sim/engine/latency_model.h"
#include "agent/sim/engine/output_sampler.h"
#include "agent/sim/engine/prefix_lookup.h"
#include "agent/sim/engine/request_state.h"
#include "agent/sim/engine/scheduler.h"

namespace kvbench::sim {

// An output and the callback it goes to.
struct PendingOutput {
  std::shared_ptr<const OutputCallback> callback;
  RequestOutput output;
  void Deliver() const {
    if (callback != nullptr && *callback) (*callback)(output);
  }
};

struct StepResult {
  double duration_s = 0;
  // What the step produced, to deliver at its end (start + duration_s), in batch order.
  std::vector<PendingOutput> outputs;
};

// The simulated engine as a pure, deterministic state machine over a virtual clock: no threads,
// no sleeping, no wall clock. The driver (ThreadedSimEngine, or a test) submits requests with
// their arrival times and runs steps; each Step(now) schedules one batch (Scheduler), prices it
// (LatencyModel) and returns its duration and the outputs due at its end. Observer calls happen
// inside Step, Abort and AbortAll. With a connector, the prompt's full chunks are stored to the
// external cache when its prefill completes (chunk bytes = chunk size x the whole model's KV
// bytes per token: LMCache stores every TP rank's share).
class EngineCore {
 public:
  // `external` (may be null: no connector) and `observer` (may be null) must outlive the core.
  EngineCore(const EngineConfig& config, ExternalKvCache* external, EngineObserver* observer);

  // Queues a request that arrived at `arrival_s`. A request that can never run (empty prompt,
  // prompt of max_model_len or more, more KV blocks than the GPU has, a duplicate id) is answered
  // at once: the returned output finishes it with `error` set.
  std::optional<PendingOutput> Submit(EngineRequest request, double arrival_s);
  // Finishes a queued or running request with kAbort; nullopt for an unknown id.
  std::optional<PendingOutput> Abort(const std::string& request_id, double now_s);
  std::vector<PendingOutput> AbortAll(double now_s);

  bool HasWork() const { return !scheduler_.empty(); }
  // When the next step should start, given the engine is free from `now_s` on: `now_s` while
  // anything runs, else the next waiting request's arrival.
  double EarliestStart(double now_s) const { return scheduler_.EarliestStart(now_s); }
  StepResult Step(double now_s);

  const EngineConfig& config() const { return config_; }
  const KvBlockManager& blocks() const { return blocks_; }
  const LatencyModel& latency() const { return latency_; }
  int num_running() const { return scheduler_.num_running(); }
  int num_waiting() const { return scheduler_.num_waiting(); }
  // Bytes of one external chunk (whole model), as passed to ExternalKvCache::Store.
  int64_t chunk_bytes() const { return chunk_bytes_; }

 private:
  // The answer to a request refused at Submit.
  static PendingOutput Rejection(const EngineRequest& request, double arrival_s, std::string error);
  void RecordAdmission(const Admission& admission, double now_s);
  StepComposition Compose(const SchedulerOutput& scheduled) const;
  // Chunks of `request`'s prompt to store now that its prefill is complete (0 if none).
  int64_t ChunksToStore(const RequestState& request) const;
  void StoreChunks(RequestState* request);
  // Samples the next token of a request whose computed tokens caught up; emits it.
  void EmitToken(RequestState* request, double end_s, StepResult* result);
  RequestOutput MakeOutput(const RequestState& request) const;
  void Finish(RequestState* request, FinishReason reason);

  // Members in dependency order.
  const EngineConfig config_;
  EngineObserver* const observer_;
  ExternalKvCache* const external_;
  const int64_t max_model_len_;  // 0: unlimited
  const int64_t chunk_bytes_;
  KvBlockManager blocks_;
  PrefixLookup lookup_;
  Scheduler scheduler_;
  const LatencyModel latency_;
  const OutputSampler sampler_;
  std::unordered_map<std::string, std::unique_ptr<RequestState>> requests_;
};

}  // namespace kvbench::sim
