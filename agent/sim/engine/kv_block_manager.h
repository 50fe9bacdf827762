#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace kvbench::sim {

using BlockId = int32_t;

// The paged GPU KV cache: `num_blocks` blocks of `block_size` tokens, each referenced by the
// block tables of the running requests that use it, with vLLM's automatic prefix caching:
// - a full block of computed tokens is registered under its chain hash (CacheBlocks), and a
//   later request whose prompt starts with the same blocks reuses them (FindCachedPrefix);
// - a block nobody references any more stays cached but counts as free: it waits in an LRU of
//   free cached blocks and is evicted (its hash forgotten) only when a fresh block is needed and
//   no free uncached block is left. A table is freed tail first, so a request's last blocks are
//   evicted before its first ones, as vLLM's free queue does.
// (vLLM keeps one free queue for both kinds; serving uncached free blocks first keeps strictly
// more prefixes cached and differs only under pressure.)
// Usage() counts referenced blocks only; free cached blocks count as free (vLLM's
// kv_cache_usage_perc). Not thread-safe; the engine core owns it.
class KvBlockManager {
 public:
  KvBlockManager(int64_t num_blocks, int block_size, bool enable_prefix_caching);

  int block_size() const { return block_size_; }
  int64_t num_blocks() const { return static_cast<int64_t>(blocks_.size()); }
  // Free uncached blocks plus free cached (evictable) blocks.
  int64_t num_free_blocks() const {
    return static_cast<int64_t>(free_uncached_.size() + free_cached_.size());
  }
  int64_t num_free_cached_blocks() const { return static_cast<int64_t>(free_cached_.size()); }
  int64_t num_used_blocks() const { return num_blocks() - num_free_blocks(); }
  // Referenced blocks / all blocks, 0..1.
  double Usage() const;

  // The blocks holding the longest cached prefix of `block_hashes`, at most `max_blocks` of them.
  // Takes no references: pass the result to Allocate.
  std::vector<BlockId> FindCachedPrefix(const std::vector<uint64_t>& block_hashes,
                                        int64_t max_blocks) const;
  // Grows `table` to cover `num_tokens` tokens: first appends `hit_blocks` (a cached prefix from
  // FindCachedPrefix, only for an empty table), then fresh blocks, evicting the least recently
  // freed cached blocks when no uncached block is free. Returns false and changes nothing when
  // the free pool cannot supply them.
  bool Allocate(const std::vector<BlockId>& hit_blocks, int64_t num_tokens,
                std::vector<BlockId>* table);
  // Registers table[from..to) under hashes[from..to): full blocks of computed tokens. A hash that
  // is already cached (another request computed the same block) keeps its first block.
  void CacheBlocks(const std::vector<BlockId>& table, const std::vector<uint64_t>& hashes,
                   int64_t from, int64_t to);
  // Drops the table's references (tail first) and clears it.
  void Free(std::vector<BlockId>* table);

  // For tests and diagnostics.
  bool IsCached(uint64_t hash) const { return cached_.count(hash) > 0; }
  int RefCount(BlockId block) const { return blocks_[static_cast<size_t>(block)].ref_count; }

 private:
  struct Block {
    int ref_count = 0;
    bool has_hash = false;
    uint64_t hash = 0;
    std::list<BlockId>::iterator lru_position;  // valid while in free_cached_
  };

  // A fresh block (ref 1, no hash), evicting the oldest free cached block when needed.
  BlockId TakeFreshBlock();
  void AddReference(BlockId id);

  const int block_size_;
  const bool enable_prefix_caching_;
  std::vector<Block> blocks_;
  std::vector<BlockId> free_uncached_;  // a stack: the lowest ids come out first
  std::list<BlockId> free_cached_;      // LRU: front = least recently freed = next evicted
  std::unordered_map<uint64_t, BlockId> cached_;
};

}  // namespace kvbench::sim
