#include "agent/sim/engine/kv_block_manager.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/log/logging.h"

namespace kvbench::sim {

KvBlockManager::KvBlockManager(int64_t num_blocks, int block_size, bool enable_prefix_caching)
    : block_size_(block_size),
      enable_prefix_caching_(enable_prefix_caching),
      blocks_(static_cast<size_t>(std::max<int64_t>(num_blocks, 0))) {
  KV_CHECK(block_size_ > 0) << "block_size=" << block_size_;
  free_uncached_.reserve(blocks_.size());
  for (int64_t id = num_blocks - 1; id >= 0; --id) {
    free_uncached_.push_back(static_cast<BlockId>(id));
  }
}

double KvBlockManager::Usage() const {
  if (blocks_.empty()) return 0;
  return static_cast<double>(num_used_blocks()) / static_cast<double>(num_blocks());
}

std::vector<BlockId> KvBlockManager::FindCachedPrefix(const std::vector<uint64_t>& block_hashes,
                                                      int64_t max_blocks) const {
  std::vector<BlockId> hits;
  if (!enable_prefix_caching_) return hits;
  const int64_t limit = std::min<int64_t>(max_blocks, static_cast<int64_t>(block_hashes.size()));
  for (int64_t i = 0; i < limit; ++i) {
    const auto it = cached_.find(block_hashes[static_cast<size_t>(i)]);
    if (it == cached_.end()) break;
    hits.push_back(it->second);
  }
  return hits;
}

bool KvBlockManager::Allocate(const std::vector<BlockId>& hit_blocks, int64_t num_tokens,
                              std::vector<BlockId>* table) {
  KV_CHECK(hit_blocks.empty() || table->empty()) << "prefix hits only for a new table";
  const int64_t needed = (num_tokens + block_size_ - 1) / block_size_;
  const int64_t have = static_cast<int64_t>(table->size() + hit_blocks.size());
  const int64_t fresh = std::max<int64_t>(needed - have, 0);
  // A hit on a free cached block takes it out of the free pool too.
  int64_t revived = 0;
  for (BlockId id : hit_blocks) {
    if (blocks_[static_cast<size_t>(id)].ref_count == 0) ++revived;
  }
  if (fresh + revived > num_free_blocks()) return false;
  for (BlockId id : hit_blocks) {
    AddReference(id);
    table->push_back(id);
  }
  for (int64_t i = 0; i < fresh; ++i) table->push_back(TakeFreshBlock());
  return true;
}

void KvBlockManager::CacheBlocks(const std::vector<BlockId>& table,
                                 const std::vector<uint64_t>& hashes, int64_t from, int64_t to) {
  if (!enable_prefix_caching_) return;
  KV_CHECK(to <= static_cast<int64_t>(table.size()) && to <= static_cast<int64_t>(hashes.size()))
      << "caching blocks beyond the table or the hashes to=" << to;
  for (int64_t i = from; i < to; ++i) {
    const BlockId id = table[static_cast<size_t>(i)];
    Block& block = blocks_[static_cast<size_t>(id)];
    if (block.has_hash) continue;
    const uint64_t hash = hashes[static_cast<size_t>(i)];
    if (!cached_.emplace(hash, id).second) continue;
    block.has_hash = true;
    block.hash = hash;
  }
}

void KvBlockManager::Free(std::vector<BlockId>* table) {
  for (auto it = table->rbegin(); it != table->rend(); ++it) {
    Block& block = blocks_[static_cast<size_t>(*it)];
    KV_CHECK(block.ref_count > 0) << "freeing an unreferenced block id=" << *it;
    if (--block.ref_count > 0) continue;
    if (block.has_hash) {
      block.lru_position = free_cached_.insert(free_cached_.end(), *it);
    } else {
      free_uncached_.push_back(*it);
    }
  }
  table->clear();
}

BlockId KvBlockManager::TakeFreshBlock() {
  BlockId id;
  if (!free_uncached_.empty()) {
    id = free_uncached_.back();
    free_uncached_.pop_back();
  } else {
    KV_CHECK(!free_cached_.empty()) << "no free block";
    id = free_cached_.front();
    free_cached_.pop_front();
    Block& evicted = blocks_[static_cast<size_t>(id)];
    cached_.erase(evicted.hash);
    evicted.has_hash = false;
  }
  blocks_[static_cast<size_t>(id)].ref_count = 1;
  return id;
}

void KvBlockManager::AddReference(BlockId id) {
  Block& block = blocks_[static_cast<size_t>(id)];
  if (block.ref_count++ == 0) free_cached_.erase(block.lru_position);
}

}  // namespace kvbench::sim
