#pragma once

#include <atomic>
#include <bitset>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/sim/lmcache/l2_adapter.h"
#include "agent/sim/lmcache/lmcache_metrics.h"
#include "common/time/clock.h"

namespace kvbench::sim::lmcache {

// Real bytes per logical KV byte in an L2 chunk file (--sim-l2-bytes-scale): a 32 MiB chunk
// (256 tokens x 128 KiB) becomes a 33.5 KB file, so disk I/O really happens and shows in disk
// telemetry while a test's L2 fits on any disk.
inline constexpr double kDefaultL2BytesScale = 1e-3;

// The adapter JSON's optional "eviction" block (upstream L2AdapterConfigBase
// ._parse_eviction_config, LMCache/LMCache:lmcache/v1/distributed/l2_adapters/config.py@04aa2be9):
// eviction_policy is required (LRU, IsolatedLRU or noop); the watermark and ratio default to
// 0.8 and 0.2.
inline constexpr double kDefaultL2TriggerWatermark = 0.8;
inline constexpr double kDefaultL2EvictionRatio = 0.2;
struct L2EvictionOptions {
  std::string policy;  // LRU, IsolatedLRU (both simulated as LRU) or noop
  double trigger_watermark = kDefaultL2TriggerWatermark;
  double eviction_ratio = kDefaultL2EvictionRatio;  // share of the held objects per tick
};

struct L2FsOptions {
  std::string base_path;
  int64_t max_capacity_bytes = 0;  // logical bytes; 0 = no capacity: never evicts
  double bytes_scale = kDefaultL2BytesScale;
  std::optional<L2EvictionOptions> eviction;  // absent: never evicts, whatever the capacity
  // Simulated size of the pool's disk in real bytes (--sim-l2-device-bytes; 0: the real disk's):
  // a store whose file would take the files past it fails with ENOSPC, as on a full disk.
  int64_t device_bytes = 0;
};

// LMCache's "fs" L2 adapter, simulated with real files: one file per chunk,
//   <base_path>/<first two hex digits of the hash>/<hash as 16 hex digits>.data
// holding a 32-byte header (magic, hash, logical bytes, file size) and filler up to
// max(32, logical bytes x bytes_scale) bytes. Stores are write-through from L1, written by one
// writer thread (write to .tmp, then rename); an object counts as held once its file is complete.
// Loads really read the file back and check its header. Usage is counted in logical bytes and
// may exceed the capacity: stores never make room themselves. As upstream, only an "eviction"
// block together with a capacity bounds the pool (the storage manager's
// _should_enable_l2_eviction and L2EvictionController, LMCache/LMCache:
// lmcache/v1/distributed/storage_manager.py, storage_controllers/eviction_controller.py): then
// every EvictionTick() (~1 Hz) with usage >= trigger_watermark x capacity deletes the
// max(1, floor(eviction_ratio x held objects)) least recently used files (stored or loaded).
// Without the block the pool grows past max_capacity_gb until the disk is full.
//
// Nothing is wiped or recovered at start: files of earlier runs are neither hits nor counted
// (upstream recovers them with recover_on_start; callers wipe base_path between runs, as
// LMCache's docs advise, and kvbench's agent does). A file of the same name is overwritten.
class L2FsAdapter : public L2Adapter {
 public:
  static constexpr char kName[] = "fs";
  static constexpr size_t kHeaderBytes = 32;

  // Creates base_path if missing. FAILED_PRECONDITION naming the path if it cannot.
  static absl::StatusOr<std::unique_ptr<L2FsAdapter>> Create(L2FsOptions options,
                                                             const Clock* clock,
                                                             LmcacheMetrics* metrics);
  // Completes every queued store, then stops the writer.
  ~L2FsAdapter() override;
  L2FsAdapter(const L2FsAdapter&) = delete;
  L2FsAdapter& operator=(const L2FsAdapter&) = delete;

  const std::string& name() const override { return name_; }
  bool Contains(uint64_t hash) const override;
  void SubmitStore(std::vector<L2Object> objects) override;
  std::vector<L2Object> Load(const std::vector<uint64_t>& hashes) override;
  void WaitIdle() override;
  int64_t usage_bytes() const override;
  size_t object_count() const override;
  int EvictionTick() override;
  // True when EvictionTick can evict: an eviction block whose policy is not noop, and a capacity.
  bool evicts() const;

  // Where the chunk's file lives.
  std::string PathOf(uint64_t hash) const;
  // The size of a chunk file for `logical_bytes` of KV.
  int64_t FileBytes(int64_t logical_bytes) const;

 private:
  struct Entry {
    int64_t bytes = 0;
    std::list<uint64_t>::iterator lru_position;
  };

  L2FsAdapter(L2FsOptions options, const Clock* clock, LmcacheMetrics* metrics);

  void WriterLoop();
  // Writes one batch; returns the real bytes written and counts the objects stored.
  void WriteBatch(const std::vector<L2Object>& batch);
  absl::Status WriteObject(const L2Object& object);
  absl::Status ReadObject(uint64_t hash, int64_t logical_bytes);
  void EraseLocked(uint64_t hash);

  const L2FsOptions options_;
  const std::string name_ = kName;
  const Clock* clock_;
  LmcacheMetrics* metrics_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::deque<std::vector<L2Object>> queue_;    // guarded by mu_
  std::unordered_set<uint64_t> pending_;       // queued or being written; guarded by mu_
  bool writing_ = false;                       // guarded by mu_
  bool stopping_ = false;                      // guarded by mu_
  std::list<uint64_t> lru_;                    // front: most recent; guarded by mu_
  std::unordered_map<uint64_t, Entry> index_;  // guarded by mu_
  int64_t usage_bytes_ = 0;                    // guarded by mu_
  std::bitset<256> shard_dirs_made_;           // writer thread only
  // Bytes of the chunk files this adapter wrote and still holds (for device_bytes).
  std::atomic<int64_t> real_bytes_on_disk_{0};
  std::thread writer_;  // last: started once the rest exists
};

}  // namespace kvbench::sim::lmcache
