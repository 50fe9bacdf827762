#include "agent/sim/engine/block_hasher.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kvbench::sim {
namespace {

constexpr uint64_t kFnvOffset = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

uint64_t FnvWord(uint64_t hash, uint64_t word, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    hash ^= (word >> (8 * i)) & 0xff;
    hash *= kFnvPrime;
  }
  return hash;
}

// splitmix64's finalizer: spreads FNV's weak high bits over the whole word.
uint64_t Finalize(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

}  // namespace

uint64_t BlockHasher::HashGroup(uint64_t parent, const uint32_t* tokens, size_t count) {
  uint64_t hash = FnvWord(kFnvOffset, parent, 8);
  hash = FnvWord(hash, count, 4);  // blocks and chunks of other sizes never share a name
  for (size_t i = 0; i < count; ++i) hash = FnvWord(hash, tokens[i], 4);
  return Finalize(hash);
}

std::vector<uint64_t> BlockHasher::ChainHashes(const std::vector<uint32_t>& tokens,
                                               int group_size) {
  std::vector<uint64_t> hashes;
  ExtendChainHashes(tokens, group_size, &hashes);
  return hashes;
}

void BlockHasher::ExtendChainHashes(const std::vector<uint32_t>& tokens, int group_size,
                                    std::vector<uint64_t>* hashes) {
  if (group_size <= 0) return;
  const size_t size = static_cast<size_t>(group_size);
  const size_t full = tokens.size() / size;
  while (hashes->size() < full) {
    const size_t index = hashes->size();
    const uint64_t parent = index == 0 ? kRootHash : (*hashes)[index - 1];
    hashes->push_back(HashGroup(parent, tokens.data() + index * size, size));
  }
}

}  // namespace kvbench::sim
