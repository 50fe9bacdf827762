#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>
#include <vector>

#include "agent/sim/engine/block_hasher.h"

namespace kvbench::sim {
namespace {

std::vector<uint32_t> Iota(size_t n, uint32_t first = 1) {
  std::vector<uint32_t> tokens(n);
  std::iota(tokens.begin(), tokens.end(), first);
  return tokens;
}

TEST_CASE("BlockHasher names full groups only", "[sim_engine]") {
  struct Case {
    size_t tokens;
    int group;
    size_t names;
  };
  const Case cases[] = {{0, 16, 0},    {15, 16, 0},   {16, 16, 1}, {100, 16, 6},
                        {255, 256, 0}, {512, 256, 2}, {10, 0, 0}};
  for (const Case& c : cases) {
    INFO(c.tokens << " tokens in groups of " << c.group);
    CHECK(BlockHasher::ChainHashes(Iota(c.tokens), c.group).size() == c.names);
  }
}

TEST_CASE("BlockHasher chains: a name depends on the whole prefix", "[sim_engine]") {
  const std::vector<uint32_t> a = Iota(64);
  std::vector<uint32_t> b = a;
  b[0] = 999;  // differs in the first block only
  const auto ha = BlockHasher::ChainHashes(a, 16);
  const auto hb = BlockHasher::ChainHashes(b, 16);
  REQUIRE(ha.size() == 4);
  for (size_t i = 0; i < ha.size(); ++i) CHECK(ha[i] != hb[i]);
  // Same tokens, same chain; a longer sequence extends it.
  std::vector<uint32_t> longer = a;
  longer.insert(longer.end(), {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7});
  const auto hl = BlockHasher::ChainHashes(longer, 16);
  REQUIRE(hl.size() == 5);
  CHECK(std::equal(ha.begin(), ha.end(), hl.begin()));
  // Blocks and chunks over the same tokens never share names.
  CHECK(BlockHasher::ChainHashes(Iota(256), 256)[0] != BlockHasher::ChainHashes(Iota(256), 16)[15]);
}

TEST_CASE("BlockHasher extends a chain as tokens are generated", "[sim_engine]") {
  std::vector<uint32_t> tokens = Iota(20);
  std::vector<uint64_t> hashes = BlockHasher::ChainHashes(tokens, 16);
  REQUIRE(hashes.size() == 1);
  while (tokens.size() < 48) {
    tokens.push_back(static_cast<uint32_t>(tokens.size() * 3));
    BlockHasher::ExtendChainHashes(tokens, 16, &hashes);
  }
  CHECK(hashes == BlockHasher::ChainHashes(tokens, 16));
}

TEST_CASE("BlockHasher names are the same in every process", "[sim_engine]") {
  // Pinned values: a change here breaks cache sharing between replicas of different builds.
  const auto hashes = BlockHasher::ChainHashes(Iota(32), 16);
  REQUIRE(hashes.size() == 2);
  CHECK(hashes[0] == 0x47f1839874dec846ull);
  CHECK(hashes[1] == 0xd75c5a4ff0c05dc3ull);
}

}  // namespace
}  // namespace kvbench::sim
