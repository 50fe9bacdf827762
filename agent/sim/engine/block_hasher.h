#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kvbench::sim {

// Names of KV blocks and of external-cache chunks: a hash chain over consecutive full groups of
// `group_size` tokens, h[i] = Hash(h[i-1], tokens of group i), starting from a fixed root. The
// hash (FNV-1a over the parent and the token ids, then a splitmix64 finalizer) has no
// per-process seed, so two engines, two replicas or two runs name the same prefix identically;
// that is what lets a shared external cache find another replica's chunks. A partial last group
// has no name (only full blocks are cached, only full chunks stored).
class BlockHasher {
 public:
  static constexpr uint64_t kRootHash = 0x6b7673696d2d6b76ull;  // "kvsim-kv"

  // The hash of `count` tokens following the group named `parent`.
  static uint64_t HashGroup(uint64_t parent, const uint32_t* tokens, size_t count);
  // Names of every full group of `group_size` tokens in `tokens`.
  static std::vector<uint64_t> ChainHashes(const std::vector<uint32_t>& tokens, int group_size);
  // Appends the names of groups of `tokens` that became full since `hashes` was last extended.
  static void ExtendChainHashes(const std::vector<uint32_t>& tokens, int group_size,
                                std::vector<uint64_t>* hashes);
};

}  // namespace kvbench::sim
