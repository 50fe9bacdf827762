#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "agent/sim/engine/kv_block_manager.h"

namespace kvbench::sim {
namespace {

// A table of `blocks` full blocks whose hashes are base, base+1, ...
std::vector<uint64_t> Hashes(uint64_t base, int blocks) {
  std::vector<uint64_t> hashes;
  for (int i = 0; i < blocks; ++i) hashes.push_back(base + static_cast<uint64_t>(i));
  return hashes;
}

TEST_CASE("KvBlockManager allocates by tokens and fails without side effects", "[sim_engine]") {
  KvBlockManager manager(4, 16, true);
  std::vector<BlockId> a;
  REQUIRE(manager.Allocate({}, 17, &a));  // 2 blocks
  CHECK(a.size() == 2);
  CHECK(manager.num_free_blocks() == 2);
  CHECK(manager.Usage() == Approx(0.5));
  REQUIRE(manager.Allocate({}, 32, &a));  // still 2 blocks
  CHECK(a.size() == 2);
  std::vector<BlockId> b;
  CHECK_FALSE(manager.Allocate({}, 48, &b));  // 3 > 2 free
  CHECK(b.empty());
  CHECK(manager.num_free_blocks() == 2);
  manager.Free(&a);
  CHECK(a.empty());
  CHECK(manager.num_free_blocks() == 4);
  CHECK(manager.Usage() == 0);
}

TEST_CASE("KvBlockManager evicts free cached blocks in LRU order only when needed",
          "[sim_engine]") {
  KvBlockManager manager(6, 16, true);
  std::vector<BlockId> a;
  std::vector<BlockId> b;
  REQUIRE(manager.Allocate({}, 32, &a));
  REQUIRE(manager.Allocate({}, 32, &b));
  manager.CacheBlocks(a, Hashes(100, 2), 0, 2);
  manager.CacheBlocks(b, Hashes(200, 2), 0, 2);
  manager.Free(&a);  // LRU: 101, 100 (a table is freed tail first)
  manager.Free(&b);  // LRU: 101, 100, 201, 200
  CHECK(manager.num_free_blocks() == 6);
  CHECK(manager.num_free_cached_blocks() == 4);
  CHECK(manager.Usage() == 0);  // free cached blocks count as free

  // Two uncached blocks are free: they go first and nothing is evicted.
  std::vector<BlockId> c;
  REQUIRE(manager.Allocate({}, 32, &c));
  for (uint64_t h : {100, 101, 200, 201}) CHECK(manager.IsCached(h));

  // Now every fresh block evicts the least recently freed cached one.
  struct Step {
    uint64_t evicted;
  };
  const Step order[] = {{101}, {100}, {201}, {200}};
  std::vector<BlockId> d;
  for (const Step& step : order) {
    INFO("expect eviction of " << step.evicted);
    REQUIRE(manager.Allocate({}, static_cast<int64_t>(d.size() + 1) * 16, &d));
    CHECK_FALSE(manager.IsCached(step.evicted));
  }
  CHECK(manager.num_free_blocks() == 0);
  std::vector<BlockId> e;
  CHECK_FALSE(manager.Allocate({}, 1, &e));
}

TEST_CASE("KvBlockManager hits share blocks and revive free cached ones", "[sim_engine]") {
  KvBlockManager manager(4, 16, true);
  std::vector<BlockId> a;
  REQUIRE(manager.Allocate({}, 40, &a));  // 3 blocks, 2 full
  manager.CacheBlocks(a, Hashes(10, 2), 0, 2);

  // A running request's cached blocks are shared (ref 2).
  const auto hits = manager.FindCachedPrefix({10, 11, 12}, 10);
  REQUIRE(hits.size() == 2);
  std::vector<BlockId> b;
  REQUIRE(manager.Allocate(hits, 33, &b));  // 2 hit blocks + 1 fresh
  CHECK(b.size() == 3);
  CHECK(manager.RefCount(hits[0]) == 2);
  CHECK(manager.num_free_blocks() == 0);
  manager.Free(&a);
  manager.Free(&b);
  CHECK(manager.num_free_blocks() == 4);

  // A hit on free cached blocks takes them out of the LRU: they are not evicted for fresh ones.
  const auto again = manager.FindCachedPrefix({10, 11}, 1);  // capped at 1 block
  REQUIRE(again.size() == 1);
  std::vector<BlockId> c;
  REQUIRE(manager.Allocate(again, 64, &c));  // 1 hit + 3 fresh: evicts block 11's
  CHECK(manager.IsCached(10));
  CHECK_FALSE(manager.IsCached(11));
  CHECK(manager.num_free_blocks() == 0);
}

TEST_CASE("KvBlockManager without prefix caching never hits", "[sim_engine]") {
  KvBlockManager manager(4, 16, false);
  std::vector<BlockId> a;
  REQUIRE(manager.Allocate({}, 32, &a));
  manager.CacheBlocks(a, Hashes(1, 2), 0, 2);
  manager.Free(&a);
  CHECK(manager.FindCachedPrefix(Hashes(1, 2), 2).empty());
  CHECK(manager.num_free_cached_blocks() == 0);
}

}  // namespace
}  // namespace kvbench::sim
