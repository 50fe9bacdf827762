#include "agent/sim/engine/prefix_lookup.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/log/logging.h"

namespace kvbench::sim {

PrefixLookup::PrefixLookup(const KvBlockManager* blocks, ExternalKvCache* external)
    : blocks_(blocks),
      external_(external),
      chunk_size_(external != nullptr ? external->chunk_size() : 0) {}

PrefixHit PrefixLookup::Find(RequestState* request) const {
  PrefixHit hit;
  const int64_t block_size = blocks_->block_size();
  const int64_t last_reusable = request->num_tokens() - 1;  // the last token is always recomputed
  hit.local_blocks = blocks_->FindCachedPrefix(request->block_hashes, last_reusable / block_size);
  hit.local_tokens = static_cast<int64_t>(hit.local_blocks.size()) * block_size;
  if (external_ == nullptr || chunk_size_ <= 0 || request->chunk_hashes.empty()) return hit;

  if (!request->pending_lookup) {
    absl::StatusOr<ExternalLookup> lookup = external_->Lookup(request->chunk_hashes);
    if (!lookup.ok()) {
      KV_LOG_EVERY_N_SEC(WARNING, 30)
          << "external cache lookup failed, counted as a miss request=" << request->id
          << " error=" << lookup.status().ToString();
      return hit;
    }
    request->pending_lookup = *lookup;
  }
  hit.external_hit_chunks = std::clamp<int64_t>(request->pending_lookup->hit_chunks, 0,
                                                static_cast<int64_t>(request->chunk_hashes.size()));
  const int64_t external_end = std::min(hit.external_hit_chunks * chunk_size_, last_reusable);
  hit.external_tokens = std::max<int64_t>(external_end - hit.local_tokens, 0);
  return hit;
}

absl::StatusOr<ExternalLoad> PrefixLookup::Load(const RequestState& request,
                                                const PrefixHit& hit) const {
  if (external_ == nullptr || hit.external_tokens <= 0) return ExternalLoad{};
  const int64_t first = hit.local_tokens / chunk_size_;
  const std::vector<uint64_t> chunks(request.chunk_hashes.begin() + first,
                                     request.chunk_hashes.begin() + hit.external_hit_chunks);
  return external_->Load(chunks);
}

}  // namespace kvbench::sim
