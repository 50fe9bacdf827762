#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/sim/lmcache/l1_pool.h"
#include "agent/sim/lmcache/l2_adapter.h"
#include "agent/sim/lmcache/lmcache_metrics.h"

namespace kvbench::sim::lmcache {

struct ChunkStoreOptions {
  int chunk_size = 256;            // tokens per chunk (--chunk-size), for the token metrics
  int64_t l1_capacity_bytes = 0;   // --l1-size-gb
  bool evict = true;               // false for --eviction-policy noop: L1 never evicts
  double trigger_watermark = 0.8;  // --eviction-trigger-watermark
  double eviction_ratio = 0.2;     // --eviction-ratio
};

struct LookupResult {
  int hit_chunks = 0;  // contiguous prefix found in L1 or L2
  int l2_chunks = 0;   // of those, only in L2
};

struct LoadResult {
  int l1_chunks = 0;  // read from L1
  int l2_chunks = 0;  // read back from L2 files, then promoted into L1
};

struct StoreResult {
  int new_chunks = 0;
  int refreshed_chunks = 0;  // already in L1: moved to the front of the LRU order
  int dropped_chunks = 0;    // no room in L1 (noop policy, or larger than the pool)
};

struct EvictionTickResult {
  bool triggered = false;
  int evicted_chunks = 0;
};

// The cache of kvsim-lmcache: the L1 pool, the optional L2 adapter behind it, and the metrics of
// both, with the semantics of LOOKUP / LOAD / STORE documented in lmcache_protocol.h. Every
// method is thread-safe (one mutex; L2 file I/O happens outside it).
//
// L1 eviction follows LMCache's: the eviction loop (EvictionLoop, ~1 Hz) calls EvictionTick(),
// which evicts eviction_ratio x capacity bytes of least-recently-used chunks when usage is at or
// above trigger_watermark x capacity. A write that does not fit between ticks evicts
// synchronously just enough (counted in kvsim_lmcache_l1_sync_evictions_total). With the noop
// policy nothing is evicted and writes that do not fit are dropped
// (lmcache_mp_l1_allocation_failure_total). Stores are written through to L2 when there is one.
class ChunkStore {
 public:
  // `l2` may be null (no --l2-adapter); `l2` and `metrics` must outlive the store.
  ChunkStore(ChunkStoreOptions options, L2Adapter* l2, LmcacheMetrics* metrics);
  ChunkStore(const ChunkStore&) = delete;
  ChunkStore& operator=(const ChunkStore&) = delete;

  const ChunkStoreOptions& options() const { return options_; }

  LookupResult Lookup(const std::string& model, const std::vector<uint64_t>& hashes);
  LoadResult Load(const std::string& model, const std::vector<uint64_t>& hashes);
  // INVALID_ARGUMENT for bytes_per_chunk <= 0.
  absl::StatusOr<StoreResult> Store(const std::string& model, const std::vector<uint64_t>& hashes,
                                    int64_t bytes_per_chunk);
  // One tick of the eviction loop.
  EvictionTickResult EvictionTick();
  // Drops every L1 chunk (POST /clear-cache); L2 keeps its files. Returns how many.
  size_t ClearL1();

  int64_t l1_used_bytes() const;
  size_t l1_chunk_count() const;
  bool l1_contains(uint64_t hash) const;
  L2Adapter* l2() const { return l2_; }

 private:
  // Inserts into L1, evicting synchronously if needed. Needs mu_. False if dropped.
  bool InsertLocked(uint64_t hash, int64_t bytes, int* sync_evicted);
  // Reports the L1 usage gauges and the write/eviction outcome of one request. Needs mu_.
  void ReportWritesLocked(int sync_evicted, int dropped);

  const ChunkStoreOptions options_;
  L2Adapter* const l2_;
  LmcacheMetrics* const metrics_;
  mutable std::mutex mu_;
  L1Pool l1_;  // guarded by mu_
};

}  // namespace kvbench::sim::lmcache
