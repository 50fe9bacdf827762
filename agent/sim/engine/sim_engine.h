#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "agent/sim/clock/sim_clock.h"
#include "agent/sim/engine/engine_config.h"
#include "agent/sim/engine/engine_types.h"
#include "agent/sim/engine/external_kv_cache.h"

namespace kvbench::sim {

// The simulated vLLM engine: a paged KV cache with prefix caching (hash chain of full blocks, LRU
// of free cached blocks, the last prompt token always recomputed), continuous batching under a
// token budget with chunked prefill, preemption (recompute) when blocks run out, external cache
// lookups/loads/stores through ExternalKvCache, and a latency model in simulated seconds (prefill
// per uncached token, external load = bytes / tier bandwidth, decode per step growing with batch
// and context), slept in real time x time_scale on its own thread.
class SimEngine {
 public:
  // `external` may be null (no connector); `observer` must outlive the engine. Without `clock`
  // simulated time is wall time ÷ time_scale (ThreadedSimEngine); with it the engine takes turns
  // on the scenario's shared clock as participant `clock_rank` (LockstepSimEngine).
  static absl::StatusOr<std::unique_ptr<SimEngine>> Create(
      EngineConfig config, std::unique_ptr<ExternalKvCache> external, EngineObserver* observer,
      std::unique_ptr<SimClock> clock = nullptr, int clock_rank = 0);
  virtual ~SimEngine() = default;

  // Starts the engine thread.
  virtual void Start() = 0;
  // Stops the thread; unfinished requests finish with kAbort. Idempotent.
  virtual void Stop() = 0;
  // Thread-safe. The request's outputs arrive on the engine thread through its callback.
  virtual void Submit(EngineRequest request) = 0;
  // Thread-safe; an unknown or finished id is a no-op. The request finishes with kAbort.
  virtual void Abort(const std::string& request_id) = 0;

  virtual const EngineConfig& config() const = 0;
  // What a stopped engine answers a Submit with, at once on the caller's thread: finished,
  // kAbort, error "the engine is stopped".
  static void AnswerStopped(const EngineRequest& request);
  // Simulated seconds since Start() (for timestamps in responses and metrics).
  virtual double NowSimSeconds() const = 0;
};

}  // namespace kvbench::sim
