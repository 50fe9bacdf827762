#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "agent/sim/engine/external_kv_cache.h"

namespace kvbench::sim::testing {

// An in-memory external (LMCache-like) cache: an L1 of `l1_capacity_chunks` chunks (0: unbounded)
// whose least recently used chunks are demoted to an unbounded L2 instead of dropped; a load of
// an L2 chunk promotes it back to L1. Counts every call. Single-threaded (the pure engine core).
class FakeExternalKvCache : public ExternalKvCache {
 public:
  explicit FakeExternalKvCache(int chunk_size = 256, int64_t l1_capacity_chunks = 0);

  int chunk_size() const override { return chunk_size_; }
  absl::StatusOr<ExternalLookup> Lookup(const std::vector<uint64_t>& chunk_hashes) override;
  absl::StatusOr<ExternalLoad> Load(const std::vector<uint64_t>& chunk_hashes) override;
  absl::Status Store(const std::vector<uint64_t>& chunk_hashes, int64_t bytes_per_chunk) override;

  // Control.
  void Put(const std::vector<uint64_t>& chunk_hashes);  // into L1, uncounted
  void DemoteAllToL2();
  void set_fail_lookups(bool fail) { fail_lookups_ = fail; }
  void set_fail_loads(bool fail) { fail_loads_ = fail; }

  // Inspection.
  bool Contains(uint64_t hash) const { return where_.count(hash) > 0; }
  bool InL2(uint64_t hash) const;
  int64_t num_chunks() const { return static_cast<int64_t>(where_.size()); }
  int lookup_calls() const { return lookup_calls_; }
  int load_calls() const { return load_calls_; }
  int store_calls() const { return store_calls_; }
  int64_t loaded_l1_chunks() const { return loaded_l1_chunks_; }
  int64_t loaded_l2_chunks() const { return loaded_l2_chunks_; }
  int64_t stored_chunks() const { return stored_chunks_; }
  int64_t stored_bytes() const { return stored_bytes_; }
  int64_t last_bytes_per_chunk() const { return last_bytes_per_chunk_; }
  // Every hash passed to Store and Load, in call order.
  const std::vector<uint64_t>& store_log() const { return store_log_; }
  const std::vector<uint64_t>& load_log() const { return load_log_; }

 private:
  struct Entry {
    bool in_l2 = false;
    std::list<uint64_t>::iterator l1_position;  // valid while in L1
  };
  void InsertL1(uint64_t hash);
  void TouchL1(uint64_t hash);

  const int chunk_size_;
  const int64_t l1_capacity_chunks_;
  std::unordered_map<uint64_t, Entry> where_;
  std::list<uint64_t> l1_lru_;  // front: least recently used
  bool fail_lookups_ = false;
  bool fail_loads_ = false;
  int lookup_calls_ = 0;
  int load_calls_ = 0;
  int store_calls_ = 0;
  int64_t loaded_l1_chunks_ = 0;
  int64_t loaded_l2_chunks_ = 0;
  int64_t stored_chunks_ = 0;
  int64_t stored_bytes_ = 0;
  int64_t last_bytes_per_chunk_ = 0;
  std::vector<uint64_t> store_log_;
  std::vector<uint64_t> load_log_;
};

}  // namespace kvbench::sim::testing
