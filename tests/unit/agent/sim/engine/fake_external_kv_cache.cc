#include "tests/unit/agent/sim/engine/fake_external_kv_cache.h"

#include <cstdint>
#include <vector>

#include "absl/status/status.h"

namespace kvbench::sim::testing {

FakeExternalKvCache::FakeExternalKvCache(int chunk_size, int64_t l1_capacity_chunks)
    : chunk_size_(chunk_size), l1_capacity_chunks_(l1_capacity_chunks) {}

absl::StatusOr<ExternalLookup> FakeExternalKvCache::Lookup(
    const std::vector<uint64_t>& chunk_hashes) {
  ++lookup_calls_;
  if (fail_lookups_) return absl::UnavailableError("fake lookup failure");
  ExternalLookup lookup;
  for (uint64_t hash : chunk_hashes) {
    const auto it = where_.find(hash);
    if (it == where_.end()) break;
    ++lookup.hit_chunks;
    if (it->second.in_l2) ++lookup.l2_chunks;
  }
  return lookup;
}

absl::StatusOr<ExternalLoad> FakeExternalKvCache::Load(const std::vector<uint64_t>& chunk_hashes) {
  ++load_calls_;
  if (fail_loads_) return absl::UnavailableError("fake load failure");
  ExternalLoad load;
  for (uint64_t hash : chunk_hashes) {
    load_log_.push_back(hash);
    const auto it = where_.find(hash);
    if (it == where_.end()) return absl::NotFoundError("chunk evicted before load");
    if (it->second.in_l2) {
      ++load.l2_chunks;
      where_.erase(it);
      InsertL1(hash);
    } else {
      ++load.l1_chunks;
      TouchL1(hash);
    }
  }
  loaded_l1_chunks_ += load.l1_chunks;
  loaded_l2_chunks_ += load.l2_chunks;
  return load;
}

absl::Status FakeExternalKvCache::Store(const std::vector<uint64_t>& chunk_hashes,
                                        int64_t bytes_per_chunk) {
  ++store_calls_;
  last_bytes_per_chunk_ = bytes_per_chunk;
  for (uint64_t hash : chunk_hashes) {
    store_log_.push_back(hash);
    ++stored_chunks_;
    stored_bytes_ += bytes_per_chunk;
    if (where_.count(hash) == 0) InsertL1(hash);
  }
  return absl::OkStatus();
}

void FakeExternalKvCache::Put(const std::vector<uint64_t>& chunk_hashes) {
  for (uint64_t hash : chunk_hashes) {
    if (where_.count(hash) == 0) InsertL1(hash);
  }
}

void FakeExternalKvCache::DemoteAllToL2() {
  for (auto& [hash, entry] : where_) entry.in_l2 = true;
  l1_lru_.clear();
}

bool FakeExternalKvCache::InL2(uint64_t hash) const {
  const auto it = where_.find(hash);
  return it != where_.end() && it->second.in_l2;
}

void FakeExternalKvCache::InsertL1(uint64_t hash) {
  Entry& entry = where_[hash];
  entry.in_l2 = false;
  entry.l1_position = l1_lru_.insert(l1_lru_.end(), hash);
  if (l1_capacity_chunks_ > 0 && static_cast<int64_t>(l1_lru_.size()) > l1_capacity_chunks_) {
    where_[l1_lru_.front()].in_l2 = true;
    l1_lru_.pop_front();
  }
}

void FakeExternalKvCache::TouchL1(uint64_t hash) {
  Entry& entry = where_[hash];
  l1_lru_.splice(l1_lru_.end(), l1_lru_, entry.l1_position);
}

}  // namespace kvbench::sim::testing
