#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "agent/sim/engine/external_kv_cache.h"
#include "agent/sim/engine/kv_block_manager.h"
#include "agent/sim/engine/prefix_lookup.h"
#include "agent/sim/engine/request_state.h"

namespace kvbench::sim {

// Tokens a request computes in one step on top of `context_tokens` it already had.
struct ScheduledChunk {
  RequestState* request = nullptr;
  int64_t context_tokens = 0;
  int64_t new_tokens = 0;
};

// A waiting request that entered the running batch this step.
struct Admission {
  RequestState* request = nullptr;
  int64_t local_hit_tokens = 0;
  int64_t external_hit_tokens = 0;     // as looked up (counted even if the load then failed)
  int64_t external_loaded_tokens = 0;  // as loaded: the request skips computing these
  ExternalLoad load;
};

struct SchedulerOutput {
  std::vector<ScheduledChunk> chunks;  // in batch order
  std::vector<Admission> admissions;
  int num_preempted = 0;
  int64_t scheduled_tokens = 0;
};

// vLLM V1's continuous-batching scheduler (scheduler.py, FCFS policy), over plain state:
// 1. Running requests, in admission order, each take min(tokens still to compute, budget) tokens
//    of the step's budget (max_num_batched_tokens): one for a decode, a chunk for a prefill. When
//    one needs a block and none is free, the most recently admitted running request is
//    preempted (its blocks freed, it goes to the front of the waiting queue to recompute),
//    until the block is found or the request preempted itself.
// 2. Only if nobody was preempted, waiting requests are admitted in FIFO order while the batch
//    has fewer than max_num_seqs requests, budget is left, the request has arrived by `now`
//    and its blocks can be allocated: its prefix is looked up (GPU cache, then external), the
//    external part loaded, and the rest prefilled in chunks of the budget.
// Each scheduled request's newly full blocks are registered in the prefix cache at once (as
// vLLM's allocate_slots does), so a request admitted later in the same step can hit them.
// Not thread-safe; owned by the engine core.
class Scheduler {
 public:
  struct Limits {
    int max_num_seqs = 0;
    int64_t max_num_batched_tokens = 0;
  };

  Scheduler(Limits limits, KvBlockManager* blocks, PrefixLookup* lookup);

  // Queues a new request at the back of the waiting queue.
  void AddWaiting(RequestState* request);
  // Takes the request out of whichever queue holds it and frees its blocks.
  void Remove(RequestState* request);
  SchedulerOutput Schedule(double now);

  bool empty() const { return running_.empty() && waiting_.empty(); }
  int num_running() const { return static_cast<int>(running_.size()); }
  int num_waiting() const { return static_cast<int>(waiting_.size()); }
  // The earliest time from `now` on at which a step has something to do.
  double EarliestStart(double now) const;
  // Running requests in admission order, then waiting ones in queue order.
  std::vector<RequestState*> AllRequests() const;

 private:
  // Returns whether anything was preempted.
  bool ScheduleRunning(int64_t* budget, SchedulerOutput* out);
  void ScheduleWaiting(double now, int64_t* budget, SchedulerOutput* out);
  // Admits `request` with `hit` (blocks already allocated); returns the tokens it computes.
  int64_t Admit(RequestState* request, const PrefixHit& hit, int64_t budget, SchedulerOutput* out);
  void Preempt(RequestState* request);
  // Records a chunk, advances the request's computed tokens, caches its newly full blocks.
  void Commit(RequestState* request, int64_t new_tokens, SchedulerOutput* out);

  const Limits limits_;
  KvBlockManager* blocks_;
  PrefixLookup* lookup_;
  std::vector<RequestState*> running_;  // admission order
  std::deque<RequestState*> waiting_;   // FIFO; preempted requests go to the front
};

}  // namespace kvbench::sim
