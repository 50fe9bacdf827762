#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>

namespace kvbench::sim::lmcache {

// The L1 (pinned CPU memory) pool of kvsim-lmcache as bookkeeping: which chunks it holds, their
// size in bytes (the client's bytes_per_chunk) and their least-recently-used order. No KV bytes
// are allocated: only the accounting the eviction loop and the metrics need.
// Not thread-safe: ChunkStore guards it.
class L1Pool {
 public:
  explicit L1Pool(int64_t capacity_bytes);

  int64_t capacity_bytes() const { return capacity_bytes_; }
  int64_t used_bytes() const { return used_bytes_; }
  size_t chunk_count() const { return entries_.size(); }
  // used / capacity, in [0, 1].
  double usage_ratio() const;

  bool Contains(uint64_t hash) const { return entries_.count(hash) != 0; }
  // Marks the chunk most recently used; false if absent.
  bool Touch(uint64_t hash);
  // True if `bytes` more would fit without evicting anything.
  bool Fits(int64_t bytes) const { return used_bytes_ + bytes <= capacity_bytes_; }
  // Adds a chunk as the most recently used. The caller has made room (Fits); a chunk already
  // present is only touched. Returns false (and adds nothing) if it does not fit.
  bool Insert(uint64_t hash, int64_t bytes);
  // Evicts least-recently-used chunks until at least `bytes` are freed or the pool is empty.
  // Returns how many chunks were evicted.
  int EvictLru(int64_t bytes);
  // Drops every chunk; returns how many there were.
  size_t Clear();

 private:
  struct Entry {
    int64_t bytes = 0;
    std::list<uint64_t>::iterator lru_position;
  };

  const int64_t capacity_bytes_;
  int64_t used_bytes_ = 0;
  std::list<uint64_t> lru_;  // front: most recently used
  std::unordered_map<uint64_t, Entry> entries_;
};

}  // namespace kvbench::sim::lmcache
