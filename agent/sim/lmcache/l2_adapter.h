#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kvbench::sim::lmcache {

// One chunk as L2 sees it: its name and its logical KV size.
struct L2Object {
  uint64_t hash = 0;
  int64_t bytes = 0;
};

// The L2 tier behind the L1 pool (LMCache's --l2-adapter). Implementations: L2FsAdapter (the
// "fs" type). Thread-safe.
class L2Adapter {
 public:
  virtual ~L2Adapter() = default;

  // The l2_name label of its metrics ("fs").
  virtual const std::string& name() const = 0;
  // True once the chunk's object is completely written (and not evicted since).
  virtual bool Contains(uint64_t hash) const = 0;
  // Queues the objects for writing (write-through from L1) and returns at once. Objects already
  // held or already queued are skipped.
  virtual void SubmitStore(std::vector<L2Object> objects) = 0;
  // Reads the named objects back, in order, stopping at the first one it cannot read (gone or
  // damaged). Returns the objects read, each with its logical size. Blocks for the I/O.
  virtual std::vector<L2Object> Load(const std::vector<uint64_t>& hashes) = 0;
  // Blocks until every submitted store has completed.
  virtual void WaitIdle() = 0;
  // Logical bytes held.
  virtual int64_t usage_bytes() const = 0;
  virtual size_t object_count() const = 0;
  // One tick of the L2 eviction loop (~1 Hz, beside L1's); returns the objects evicted.
  virtual int EvictionTick() = 0;
};

}  // namespace kvbench::sim::lmcache
