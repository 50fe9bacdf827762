#include "agent/sim/lmcache/chunk_store.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace kvbench::sim::lmcache {

ChunkStore::ChunkStore(ChunkStoreOptions options, L2Adapter* l2, LmcacheMetrics* metrics)
    : options_(options), l2_(l2), metrics_(metrics), l1_(options.l1_capacity_bytes) {
  metrics_->SetL1Usage(0, 0.0);
}

LookupResult ChunkStore::Lookup(const std::string& model, const std::vector<uint64_t>& hashes) {
  LookupResult result;
  int l1_hits = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint64_t hash : hashes) {
      if (l1_.Contains(hash)) {
        ++l1_hits;
      } else if (l2_ != nullptr && l2_->Contains(hash)) {
        ++result.l2_chunks;
      } else {
        break;
      }
    }
  }
  result.hit_chunks = l1_hits + result.l2_chunks;
  metrics_->RecordLookup(model, static_cast<int64_t>(hashes.size()) * options_.chunk_size, l1_hits,
                         result.l2_chunks, options_.chunk_size);
  return result;
}

LoadResult ChunkStore::Load(const std::string& model, const std::vector<uint64_t>& hashes) {
  // 1. Under the lock: which leading chunks are in L1 (read now) and which only in L2.
  std::vector<bool> from_l1;
  std::vector<uint64_t> l2_hashes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint64_t hash : hashes) {
      if (l1_.Touch(hash)) {
        from_l1.push_back(true);
      } else if (l2_ != nullptr && l2_->Contains(hash)) {
        from_l1.push_back(false);
        l2_hashes.push_back(hash);
      } else {
        break;
      }
    }
  }
  // 2. Without it: read the L2-only chunks back from disk.
  std::vector<L2Object> promoted;
  if (!l2_hashes.empty()) promoted = l2_->Load(l2_hashes);
  // 3. The loaded prefix ends before the first L2 chunk that could not be read.
  LoadResult result;
  size_t l2_seen = 0;
  for (bool in_l1 : from_l1) {
    if (in_l1) {
      ++result.l1_chunks;
    } else if (l2_seen < promoted.size()) {
      ++l2_seen;
      ++result.l2_chunks;
    } else {
      break;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  int sync_evicted = 0;
  int dropped = 0;
  for (const L2Object& object : promoted) {
    if (!InsertLocked(object.hash, object.bytes, &sync_evicted)) ++dropped;
  }
  metrics_->RecordL1Writes(static_cast<int>(promoted.size()) - dropped);
  ReportWritesLocked(sync_evicted, dropped);
  metrics_->RecordLoad(model, result.l1_chunks + result.l2_chunks);
  return result;
}

absl::StatusOr<StoreResult> ChunkStore::Store(const std::string& model,
                                              const std::vector<uint64_t>& hashes,
                                              int64_t bytes_per_chunk) {
  if (bytes_per_chunk <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("STORE bytes_per_chunk must be positive, got ", bytes_per_chunk));
  }
  StoreResult result;
  std::vector<L2Object> to_l2;
  {
    std::lock_guard<std::mutex> lock(mu_);
    int sync_evicted = 0;
    for (uint64_t hash : hashes) {
      if (l1_.Touch(hash)) {
        ++result.refreshed_chunks;
      } else if (InsertLocked(hash, bytes_per_chunk, &sync_evicted)) {
        ++result.new_chunks;
        if (l2_ != nullptr) to_l2.push_back(L2Object{hash, bytes_per_chunk});
      } else {
        ++result.dropped_chunks;
      }
    }
    metrics_->RecordStore(model, result.new_chunks);
    ReportWritesLocked(sync_evicted, result.dropped_chunks);
  }
  if (!to_l2.empty()) l2_->SubmitStore(std::move(to_l2));
  return result;
}

bool ChunkStore::InsertLocked(uint64_t hash, int64_t bytes, int* sync_evicted) {
  if (l1_.Touch(hash)) return true;
  if (!l1_.Fits(bytes)) {
    if (!options_.evict || bytes > l1_.capacity_bytes()) return false;
    *sync_evicted += l1_.EvictLru(l1_.used_bytes() + bytes - l1_.capacity_bytes());
  }
  return l1_.Insert(hash, bytes);
}

void ChunkStore::ReportWritesLocked(int sync_evicted, int dropped) {
  if (sync_evicted > 0) metrics_->RecordL1Eviction(sync_evicted, /*synchronous=*/true);
  if (dropped > 0) metrics_->RecordL1AllocationFailure(dropped);
  metrics_->SetL1Usage(l1_.used_bytes(), l1_.usage_ratio());
}

EvictionTickResult ChunkStore::EvictionTick() {
  EvictionTickResult result;
  std::lock_guard<std::mutex> lock(mu_);
  const double capacity = static_cast<double>(l1_.capacity_bytes());
  const double usage_ratio = l1_.usage_ratio();  // what the tick saw, before it evicts
  if (options_.evict && l1_.chunk_count() > 0 &&
      static_cast<double>(l1_.used_bytes()) >= options_.trigger_watermark * capacity) {
    result.triggered = true;
    result.evicted_chunks =
        l1_.EvictLru(static_cast<int64_t>(std::ceil(options_.eviction_ratio * capacity)));
  }
  metrics_->RecordEvictionTick(result.triggered, usage_ratio);
  if (result.evicted_chunks > 0) metrics_->RecordL1Eviction(result.evicted_chunks, false);
  metrics_->SetL1Usage(l1_.used_bytes(), l1_.usage_ratio());
  return result;
}

size_t ChunkStore::ClearL1() {
  std::lock_guard<std::mutex> lock(mu_);
  size_t cleared = l1_.Clear();
  metrics_->SetL1Usage(0, 0.0);
  return cleared;
}

int64_t ChunkStore::l1_used_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return l1_.used_bytes();
}

size_t ChunkStore::l1_chunk_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return l1_.chunk_count();
}

bool ChunkStore::l1_contains(uint64_t hash) const {
  std::lock_guard<std::mutex> lock(mu_);
  return l1_.Contains(hash);
}

}  // namespace kvbench::sim::lmcache
