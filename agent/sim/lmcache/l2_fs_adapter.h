#pragma once

#include <bitset>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
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

struct L2FsOptions {
  std::string base_path;
  int64_t max_capacity_bytes = 0;  // logical bytes; 0 = unbounded, no L2 eviction
  double bytes_scale = kDefaultL2BytesScale;
};

// LMCache's "fs" L2 adapter, simulated with real files: one file per chunk,
//   <base_path>/<first two hex digits of the hash>/<hash as 16 hex digits>.data
// holding a 32-byte header (magic, hash, logical bytes, file size) and filler up to
// max(32, logical bytes x bytes_scale) bytes. Stores are write-through from L1, written by one
// writer thread (write to .tmp, then rename); an object counts as held once its file is complete.
// Loads really read the file back and check its header. With a capacity, the least recently used
// files (stored or loaded) are deleted to make room; usage is counted in logical bytes.
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
  // Deletes least-recently-used files until `bytes` more fit; needs mu_. Returns how many.
  int MakeRoomLocked(int64_t bytes);
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
  std::thread writer_;                         // last: started once the rest exists
};

}  // namespace kvbench::sim::lmcache
