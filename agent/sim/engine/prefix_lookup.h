#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/sim/engine/external_kv_cache.h"
#include "agent/sim/engine/kv_block_manager.h"
#include "agent/sim/engine/request_state.h"

namespace kvbench::sim {

// Where a request's leading tokens are already available when it is (re)admitted.
struct PrefixHit {
  std::vector<BlockId> local_blocks;  // the GPU prefix-cache hit, to pass to Allocate
  int64_t local_tokens = 0;           // whole blocks, at most tokens - 1
  int64_t external_tokens = 0;        // loaded from the external cache beyond the local hit
  int64_t external_hit_chunks = 0;    // leading prompt chunks the external cache holds
  int64_t computed_tokens() const { return local_tokens + external_tokens; }
};

// Looks a request's tokens up in the GPU prefix cache, then (with a connector) the rest of its
// prompt in the external cache, with vLLM's and LMCache's rules:
// - the GPU hit is the longest run of cached leading blocks, capped at floor((T-1)/block) blocks
//   for T tokens, so the last token is always recomputed (vllm.md 1.5);
// - the external hit is the cache's leading full chunks, capped at T-1 tokens (the LMCache
//   connector recomputes the last token too), counting only tokens beyond the GPU hit.
// A failed external lookup counts as a miss (one rate-limited log line) and is tried again at the
// next call.
//
// How often the external cache is asked, as upstream does it: vLLM's v1 scheduler calls the
// connector's get_num_new_matched_tokens for the waiting request at the head of the queue on
// every step until it is admitted (vllm-project/vllm vllm/v1/core/sched/scheduler.py
// @00024d314514900f361ad072af6931e403b7f589: a request whose allocate_slots fails stays waiting
// and is looked at again next step); LMCache's multiprocess connector sends one LOOKUP request
// per request and answers the later calls from that request's future
// (LMCache/LMCache lmcache/integration/vllm/vllm_multi_process_adapter.py
// @014797a3fb2909c38b59df33fec5873a18f6be18 maybe_submit_lookup_request skips a request id with
// a lookup already submitted; lmcache_mp_connector.py@0039822b506ef1c5e5ff5717f7f0399f1367022a
// drops the future in update_state_after_alloc, i.e. at admission, and in request_finished). So
// the first Find of a waiting request looks it up and keeps the answer in
// RequestState::pending_lookup; later Finds reuse it (the GPU hit is looked up afresh each time,
// as vLLM's get_computed_blocks is); the scheduler clears it at admission, so a preempted
// request is looked up again. LMCache's lookup-requested tokens therefore count each admission
// once, not each step a request waited.
class PrefixLookup {
 public:
  // `external` may be null (no connector).
  PrefixLookup(const KvBlockManager* blocks, ExternalKvCache* external);

  bool has_external() const { return external_ != nullptr; }
  int chunk_size() const { return chunk_size_; }

  // Sets request->pending_lookup on a successful external lookup (see above).
  PrefixHit Find(RequestState* request) const;
  // Loads the chunks covering the external part of `hit` (those not wholly inside the GPU hit).
  absl::StatusOr<ExternalLoad> Load(const RequestState& request, const PrefixHit& hit) const;

 private:
  const KvBlockManager* blocks_;
  ExternalKvCache* external_;
  const int chunk_size_;
};

}  // namespace kvbench::sim
