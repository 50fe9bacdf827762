// The cache logic of kvsim-lmcache without sockets: the L1 pool, the watermark eviction loop
// (stepped by a fake executor), dedup, synchronous eviction, the noop policy and the counters.

#include "agent/sim/lmcache/chunk_store.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "agent/sim/clock/sim_clock.h"
#include "agent/sim/lmcache/eviction_loop.h"
#include "agent/sim/lmcache/l1_pool.h"
#include "agent/sim/lmcache/lmcache_metrics.h"
#include "tests/component/agent/sim/lmcache/metrics_text.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_executor.h"
#include "tests/support/temp_dir.h"

namespace kvbench::sim::lmcache {
namespace {

using ::kvbench::sim::lmcache::testing::Series;
using ::kvbench::sim::lmcache::testing::ValueOr0;

constexpr int64_t kTinyChunkBytes = 100;

// A store of `capacity_chunks` x kTinyChunkBytes with LMCache's default watermark and ratio.
struct Fixture {
  explicit Fixture(int capacity_chunks, bool evict = true)
      : metrics(LmcacheMetrics::Options{}),
        store(Options(capacity_chunks, evict), nullptr, &metrics) {}

  static ChunkStoreOptions Options(int capacity_chunks, bool evict) {
    ChunkStoreOptions options;
    options.chunk_size = 256;
    options.l1_capacity_bytes = capacity_chunks * kTinyChunkBytes;
    options.evict = evict;
    options.trigger_watermark = 0.8;
    options.eviction_ratio = 0.2;
    return options;
  }
  StoreResult Store(const std::vector<uint64_t>& hashes, const std::string& model = "m") {
    absl::StatusOr<StoreResult> result = store.Store(model, hashes, kTinyChunkBytes);
    REQUIRE(result.ok());
    return *result;
  }
  double Metric(const std::string& series) { return ValueOr0(metrics.Render(), series); }

  LmcacheMetrics metrics;
  ChunkStore store;
};

TEST_CASE("Lmcache L1 pool: LRU order and byte accounting") {
  L1Pool pool(300);
  REQUIRE(pool.Insert(1, 100));
  REQUIRE(pool.Insert(2, 100));
  REQUIRE(pool.Insert(3, 100));
  CHECK_FALSE(pool.Insert(4, 100));  // full: the caller must make room
  CHECK(pool.used_bytes() == 300);
  CHECK(pool.usage_ratio() == 1.0);
  REQUIRE(pool.Touch(1));  // order, most recent first: 1 3 2
  CHECK(pool.EvictLru(100) == 1);
  CHECK_FALSE(pool.Contains(2));
  CHECK(pool.EvictLru(150) == 2);  // frees 3, then 1
  CHECK(pool.chunk_count() == 0);
  CHECK(pool.used_bytes() == 0);
  CHECK(pool.EvictLru(100) == 0);
}

TEST_CASE("Lmcache eviction loop: evicts ratio x capacity of LRU chunks at the watermark") {
  Fixture f(10);  // watermark 800 bytes, each triggered tick evicts 200
  f.Store({1, 2, 3, 4, 5, 6, 7});
  EvictionTickResult tick = f.store.EvictionTick();
  CHECK_FALSE(tick.triggered);  // 700 < 800
  CHECK(f.store.l1_chunk_count() == 7);

  f.Store({8});
  LoadResult load = f.store.Load("m", {1});  // chunk 1 becomes the most recently used
  CHECK(load.l1_chunks == 1);
  tick = f.store.EvictionTick();
  CHECK(tick.triggered);
  CHECK(tick.evicted_chunks == 2);
  CHECK(f.store.l1_contains(1));
  CHECK_FALSE(f.store.l1_contains(2));
  CHECK_FALSE(f.store.l1_contains(3));
  CHECK(f.store.l1_used_bytes() == 600);

  const std::string text = f.metrics.Render();
  CHECK(ValueOr0(text, "lmcache_mp_l1_eviction_loop_ticks_total") == 2);
  CHECK(ValueOr0(text, "lmcache_mp_l1_eviction_loop_triggered_total") == 1);
  CHECK(ValueOr0(text, "lmcache_mp_l1_evicted_chunks_total") == 2);
  CHECK(ValueOr0(text, "lmcache_mp_l1_memory_usage_bytes") == 600);
  CHECK(ValueOr0(text, "lmcache_mp_l1_usage_ratio") == Approx(0.6));
  CHECK(ValueOr0(text, "kvsim_lmcache_l1_sync_evictions_total") == 0);
}

TEST_CASE("Lmcache eviction loop: ticks every second times the time scale") {
  ::kvbench::testing::FakeClock clock;
  ::kvbench::testing::FakeExecutor executor(&clock);
  Fixture f(10);
  EvictionLoop loop(&executor, &f.store, /*time_scale=*/0.5);
  CHECK(loop.period() == absl::Milliseconds(500));
  loop.Start();
  f.Store({1, 2, 3, 4, 5, 6, 7, 8, 9});
  executor.AdvanceTime(absl::Milliseconds(499));
  CHECK(f.Metric("lmcache_mp_l1_eviction_loop_ticks_total") == 0);
  executor.AdvanceTime(absl::Milliseconds(1));
  CHECK(f.Metric("lmcache_mp_l1_eviction_loop_ticks_total") == 1);
  CHECK(f.store.l1_chunk_count() == 7);  // 900 >= 800: 200 bytes evicted
  executor.AdvanceTime(absl::Seconds(2));
  CHECK(f.Metric("lmcache_mp_l1_eviction_loop_ticks_total") == 5);
  CHECK(f.Metric("lmcache_mp_l1_eviction_loop_triggered_total") == 1);  // 700 stays below
  loop.Stop();
  executor.AdvanceTime(absl::Seconds(2));
  CHECK(f.Metric("lmcache_mp_l1_eviction_loop_ticks_total") == 5);
}

// On the scenario's simulated clock the loop ticks by simulated seconds, when a
// request comes (CatchUp), never by a wall-clock timer: whether a chunk was evicted before a
// lookup follows the simulated time only.
TEST_CASE("Lmcache eviction loop: on a simulated clock, ticks at requests by simulated seconds") {
  ::kvbench::testing::FakeClock clock;
  ::kvbench::testing::FakeExecutor executor(&clock);
  ::kvbench::testing::TempDir dir;
  REQUIRE(SimClock::Create(dir.File("clock"), 1e-6).ok());
  absl::StatusOr<std::unique_ptr<SimClock>> sim_clock = SimClock::Open(dir.File("clock"));
  REQUIRE(sim_clock.ok());
  Fixture f(10);
  EvictionLoop loop(&executor, &f.store, /*time_scale=*/0.5, sim_clock->get());
  loop.Start();
  f.Store({1, 2, 3, 4, 5, 6, 7, 8, 9});
  executor.AdvanceTime(absl::Seconds(10));  // wall time: nothing
  loop.CatchUp();                           // simulated time 0: not due
  CHECK(f.Metric("lmcache_mp_l1_eviction_loop_ticks_total") == 0);
  // A participant's turns move simulated time to 0.5 s, then 2.7 s.
  (*sim_clock)->Join(0);
  for (double next : {0.5, 2.7}) {
    (*sim_clock)->EndTurn(0, next, SimClock::kStep, false);
    REQUIRE((*sim_clock)->AwaitTurn(0, [] { return false; }).has_value());
    loop.CatchUp();
  }
  CHECK((*sim_clock)->NowSeconds() == Approx(2.7));
  // Due at 1 s and 2 s: one tick at the request that found them due.
  CHECK(f.Metric("lmcache_mp_l1_eviction_loop_ticks_total") == 1);
  CHECK(f.store.l1_chunk_count() == 7);
  loop.CatchUp();  // the next is due at 3 s
  CHECK(f.Metric("lmcache_mp_l1_eviction_loop_ticks_total") == 1);
  executor.AdvanceTime(absl::Seconds(10));
  CHECK(f.Metric("lmcache_mp_l1_eviction_loop_ticks_total") == 1);
}

TEST_CASE("Lmcache store: an existing chunk is refreshed, not duplicated") {
  Fixture f(10);
  StoreResult first = f.Store({1, 2, 3});
  CHECK(first.new_chunks == 3);
  StoreResult second = f.Store({1, 4});
  CHECK(second.new_chunks == 1);
  CHECK(second.refreshed_chunks == 1);
  CHECK(f.store.l1_chunk_count() == 4);
  CHECK(f.store.l1_used_bytes() == 400);
  CHECK(f.Metric("lmcache_mp_l1_write_chunks_total") == 4);
  // The refreshed chunk 1 is recent again: the oldest is now 2.
  f.Store({5, 6, 7, 8, 9, 10});
  f.Store({11});
  CHECK(f.store.l1_contains(1));
  CHECK_FALSE(f.store.l1_contains(2));
}

TEST_CASE("Lmcache store: a full L1 evicts synchronously between ticks") {
  Fixture f(3);
  f.Store({1, 2, 3});
  StoreResult result = f.Store({4});
  CHECK(result.new_chunks == 1);
  CHECK_FALSE(f.store.l1_contains(1));
  CHECK(f.store.l1_used_bytes() == 300);
  CHECK(f.Metric("kvsim_lmcache_l1_sync_evictions_total") == 1);
  CHECK(f.Metric("lmcache_mp_l1_evicted_chunks_total") == 1);
  CHECK(f.Metric("lmcache_mp_l1_usage_ratio") == 1.0);
}

TEST_CASE("Lmcache store: the noop policy never evicts and drops what does not fit") {
  Fixture f(3, /*evict=*/false);
  StoreResult result = f.Store({1, 2, 3, 4});
  CHECK(result.new_chunks == 3);
  CHECK(result.dropped_chunks == 1);
  CHECK_FALSE(f.store.l1_contains(4));
  EvictionTickResult tick = f.store.EvictionTick();
  CHECK_FALSE(tick.triggered);
  CHECK(f.store.l1_chunk_count() == 3);
  CHECK(f.Metric("lmcache_mp_l1_allocation_failure_total") == 1);
  CHECK(f.Metric("lmcache_mp_l1_eviction_loop_ticks_total") == 1);
  CHECK(f.Metric("lmcache_mp_l1_evicted_chunks_total") == 0);
}

TEST_CASE("Lmcache store: bytes_per_chunk must be positive") {
  Fixture f(3);
  absl::StatusOr<StoreResult> result = f.store.Store("m", {1}, 0);
  REQUIRE_FALSE(result.ok());
  CHECK(result.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(f.store.l1_chunk_count() == 0);
}

TEST_CASE("Lmcache lookup: contiguous prefix hits and exact token counters") {
  Fixture f(10);
  f.Store({1, 2, 3});
  CHECK(f.store.Lookup("m", {1, 2, 3, 4}).hit_chunks == 3);
  CHECK(f.store.Lookup("m", {5, 1}).hit_chunks == 0);  // a prefix, not any chunk
  CHECK(f.store.Lookup("m", {1, 2}).hit_chunks == 2);
  CHECK(f.store.Lookup("m", {}).hit_chunks == 0);
  CHECK(f.store.Lookup("other", {1}).hit_chunks == 1);

  const std::string text = f.metrics.Render();
  CHECK(Series(text, "lmcache_mp_lookups_requests_total") == 5);
  CHECK(Series(text, "lmcache_mp_lookup_requested_tokens_total{model_name=\"m\"}") == 8 * 256);
  CHECK(Series(text, "lmcache_mp_lookup_hit_tokens_total{model_name=\"m\"}") == 5 * 256);
  CHECK(Series(text, "lmcache_mp_lookup_requested_tokens_total{model_name=\"other\"}") == 256);
  CHECK(Series(text, "lmcache_mp_lookup_hit_tokens_total{model_name=\"other\"}") == 256);
  CHECK(Series(text, "lmcache_mp_lookup_hit_l1_tokens_total") == 6 * 256);
  CHECK(Series(text, "lmcache_mp_lookup_hit_l2_tokens_total") == 0);
  CHECK(Series(text, "lmcache_mp_lookup_hit_l1_keys_total") == 6);
  // A lookup touches nothing: the LRU order is still 3 2 1.
  f.Store({4, 5, 6, 7, 8, 9, 10, 11});
  CHECK_FALSE(f.store.l1_contains(1));
}

TEST_CASE("Lmcache load: reads the L1 prefix and counts chunks loaded") {
  Fixture f(10);
  f.Store({1, 2, 3});
  LoadResult load = f.store.Load("m", {1, 2, 9, 3});
  CHECK(load.l1_chunks == 2);
  CHECK(load.l2_chunks == 0);
  f.store.Load("m", {});
  const std::string text = f.metrics.Render();
  CHECK(Series(text, "lmcache_mp_l1_read_chunks_total") == 2);
  CHECK(Series(text, "lmcache_mp_num_chunks_loaded_total{model_name=\"m\"}") == 2);
  CHECK(Series(text, "lmcache_mp_l0_l1_load_throughput_GB_per_second_count{model_name=\"m\"}") ==
        1);
  CHECK(Series(text, "lmcache_mp_l0_l1_load_throughput_GB_per_second_sum{model_name=\"m\"}") ==
        Approx(kModeledL1ToL0GbPerSecond));
  CHECK(Series(text, "lmcache_mp_l0_l1_store_throughput_GB_per_second_count{model_name=\"m\"}") ==
        1);
}

TEST_CASE("Lmcache clear-cache empties L1 and the usage gauges") {
  Fixture f(10);
  f.Store({1, 2, 3});
  CHECK(f.store.ClearL1() == 3);
  CHECK(f.store.Lookup("m", {1}).hit_chunks == 0);
  CHECK(f.Metric("lmcache_mp_l1_memory_usage_bytes") == 0);
}

TEST_CASE("Lmcache metrics: reset zeroes counters and keeps gauges") {
  Fixture f(10);
  f.Store({1, 2, 3});
  f.store.Lookup("m", {1});
  f.metrics.Reset();
  const std::string text = f.metrics.Render();
  CHECK(ValueOr0(text, "lmcache_mp_l1_write_chunks_total") == 0);
  CHECK(ValueOr0(text, "lmcache_mp_lookups_requests_total") == 0);
  CHECK(ValueOr0(text, "lmcache_mp_l1_memory_usage_bytes") == 300);
}

}  // namespace
}  // namespace kvbench::sim::lmcache
