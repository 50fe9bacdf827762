#include "agent/sim/lmcache/l1_pool.h"

namespace kvbench::sim::lmcache {

L1Pool::L1Pool(int64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

double L1Pool::usage_ratio() const {
  if (capacity_bytes_ <= 0) return 0.0;
  return static_cast<double>(used_bytes_) / static_cast<double>(capacity_bytes_);
}

bool L1Pool::Touch(uint64_t hash) {
  auto it = entries_.find(hash);
  if (it == entries_.end()) return false;
  lru_.splice(lru_.begin(), lru_, it->second.lru_position);
  return true;
}

bool L1Pool::Insert(uint64_t hash, int64_t bytes) {
  if (Touch(hash)) return true;
  if (!Fits(bytes)) return false;
  lru_.push_front(hash);
  entries_.emplace(hash, Entry{bytes, lru_.begin()});
  used_bytes_ += bytes;
  return true;
}

int L1Pool::EvictLru(int64_t bytes) {
  int evicted = 0;
  int64_t freed = 0;
  while (freed < bytes && !lru_.empty()) {
    auto it = entries_.find(lru_.back());
    freed += it->second.bytes;
    used_bytes_ -= it->second.bytes;
    entries_.erase(it);
    lru_.pop_back();
    ++evicted;
  }
  return evicted;
}

size_t L1Pool::Clear() {
  size_t count = entries_.size();
  entries_.clear();
  lru_.clear();
  used_bytes_ = 0;
  return count;
}

}  // namespace kvbench::sim::lmcache
