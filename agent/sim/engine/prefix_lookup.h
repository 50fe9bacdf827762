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
// A failed external lookup counts as a miss (one rate-limited log line).
class PrefixLookup {
 public:
  // `external` may be null (no connector).
  PrefixLookup(const KvBlockManager* blocks, ExternalKvCache* external);

  bool has_external() const { return external_ != nullptr; }
  int chunk_size() const { return chunk_size_; }

  PrefixHit Find(const RequestState& request) const;
  // Loads the chunks covering the external part of `hit` (those not wholly inside the GPU hit).
  absl::StatusOr<ExternalLoad> Load(const RequestState& request, const PrefixHit& hit) const;

 private:
  const KvBlockManager* blocks_;
  ExternalKvCache* external_;
  const int chunk_size_;
};

}  // namespace kvbench::sim
