// The fs L2 adapter with real files in a temp dir, behind a ChunkStore: write-through files,
// L2-only hits read back and promoted, capacity eviction, and files it must leave alone.

#include "agent/sim/lmcache/l2_fs_adapter.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "agent/sim/lmcache/chunk_store.h"
#include "agent/sim/lmcache/lmcache_metrics.h"
#include "common/time/clock.h"
#include "tests/component/agent/sim/lmcache/chunk_geometry.h"
#include "tests/component/agent/sim/lmcache/metrics_text.h"
#include "tests/support/temp_dir.h"

namespace kvbench::sim::lmcache {
namespace {

using ::kvbench::sim::lmcache::testing::Series;
using ::kvbench::sim::lmcache::testing::ValueOr0;
using ::kvbench::testing::TempDir;

using ::kvbench::sim::lmcache::testing::kLlamaChunkBytes;
const std::string kFs = "{l2_name=\"fs\"}";

struct L2Fixture {
  explicit L2Fixture(int l1_chunks, int64_t l2_capacity_chunks = 0,
                     std::optional<L2EvictionOptions> eviction = std::nullopt,
                     int64_t device_bytes = 0)
      : metrics(LmcacheMetrics::Options{"fs", 1.0, 0}) {
    L2FsOptions options;
    options.base_path = dir.File("l2");
    options.max_capacity_bytes = l2_capacity_chunks * kLlamaChunkBytes;
    options.eviction = eviction;
    options.bytes_scale = kDefaultL2BytesScale;
    options.device_bytes = device_bytes;
    absl::StatusOr<std::unique_ptr<L2FsAdapter>> created =
        L2FsAdapter::Create(options, &clock, &metrics);
    REQUIRE(created.ok());
    l2 = std::move(*created);
    ChunkStoreOptions store_options;
    store_options.chunk_size = 256;
    store_options.l1_capacity_bytes = l1_chunks * kLlamaChunkBytes;
    store = std::make_unique<ChunkStore>(store_options, l2.get(), &metrics);
  }
  void Store(const std::vector<uint64_t>& hashes) {
    REQUIRE(store->Store("m", hashes, kLlamaChunkBytes).ok());
    l2->WaitIdle();
  }
  // Chunk files under base_path, and their sizes.
  std::vector<int64_t> FileSizes() const {
    std::vector<int64_t> sizes;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.File("l2"))) {
      if (entry.is_regular_file() && absl::EndsWith(entry.path().string(), ".data")) {
        sizes.push_back(static_cast<int64_t>(entry.file_size()));
      }
    }
    return sizes;
  }
  double Metric(const std::string& series) { return ValueOr0(metrics.Render(), series); }

  TempDir dir;
  RealClock clock;
  LmcacheMetrics metrics;
  std::unique_ptr<L2FsAdapter> l2;
  std::unique_ptr<ChunkStore> store;
};

TEST_CASE("Lmcache L2 fs: stored chunks really become files under base_path") {
  L2Fixture f(/*l1_chunks=*/10);
  f.Store({1, 2, 0xABCDEF0123456789ull});
  const int64_t file_bytes = f.l2->FileBytes(kLlamaChunkBytes);
  CHECK(file_bytes == 33554);
  CHECK(f.FileSizes() == std::vector<int64_t>{file_bytes, file_bytes, file_bytes});
  CHECK(std::filesystem::exists(f.dir.File("l2/ab/abcdef0123456789.data")));
  CHECK(f.l2->Contains(1));
  CHECK(f.l2->usage_bytes() == 3 * kLlamaChunkBytes);

  // Dedup reaches L2 too: storing the same chunks again writes nothing.
  f.Store({1, 2});
  CHECK(f.FileSizes().size() == 3);

  const std::string text = f.metrics.Render();
  CHECK(Series(text, "lmcache_mp_l2_store_completed_requests_total" + kFs) == 1);
  CHECK(Series(text, "lmcache_mp_l2_store_completed_objects_chunks_total" + kFs) == 3);
  CHECK(Series(text, "lmcache_mp_l2_usage_bytes" + kFs) == 3 * kLlamaChunkBytes);
  CHECK(Series(text, "lmcache_mp_l2_store_throughput_GB_per_second_count" + kFs) == 1);
  CHECK(Series(text, "lmcache_mp_l2_store_throughput_GB_per_second_sum" + kFs) > 0);
}

TEST_CASE("Lmcache L2 fs: a full disk fails stores with ENOSPC, counted as submitted, not stored") {
  // --sim-l2-device-bytes: room for two chunk files.
  L2Fixture f(/*l1_chunks=*/10, 0, std::nullopt, /*device_bytes=*/2 * 33554 + 100);
  f.Store({1, 2, 3, 4});
  CHECK(f.FileSizes().size() == 2);
  CHECK(f.l2->Contains(1));
  CHECK_FALSE(f.l2->Contains(3));
  CHECK(f.l2->usage_bytes() == 2 * kLlamaChunkBytes);
  const std::string text = f.metrics.Render();
  // Upstream's L2_STORE_COMPLETED of a failed store carries no key counts: the batch completes,
  // its failed chunks are stored nowhere (subscribers/metrics/l2.py@0b5897e9).
  CHECK(Series(text, "lmcache_mp_l2_store_submitted_requests_total") == 1);
  CHECK(Series(text, "lmcache_mp_l2_store_submitted_objects_chunks_total") == 4);
  CHECK(Series(text, "lmcache_mp_l2_store_completed_requests_total" + kFs) == 1);
  CHECK(Series(text, "lmcache_mp_l2_store_completed_objects_chunks_total" + kFs) == 2);
}

TEST_CASE("Lmcache L2 fs: an L2-only hit is read back from its file and promoted to L1") {
  L2Fixture f(/*l1_chunks=*/2);
  f.Store({1, 2, 3});  // L1 holds 2 and 3; chunk 1 was evicted but its file stays
  REQUIRE_FALSE(f.store->l1_contains(1));

  LookupResult lookup = f.store->Lookup("m", {1, 2, 3, 4});
  CHECK(lookup.hit_chunks == 3);
  CHECK(lookup.l2_chunks == 1);

  LoadResult load = f.store->Load("m", {1, 2, 3});
  CHECK(load.l1_chunks == 2);
  CHECK(load.l2_chunks == 1);
  CHECK(f.store->l1_contains(1));

  const std::string text = f.metrics.Render();
  CHECK(Series(text, "lmcache_mp_lookup_hit_l2_tokens_total") == 256);
  CHECK(Series(text, "lmcache_mp_lookup_hit_l1_tokens_total") == 2 * 256);
  CHECK(Series(text, "lmcache_mp_lookup_hit_tokens_total{model_name=\"m\"}") == 3 * 256);
  CHECK(Series(text, "lmcache_mp_l2_load_completed_requests_total" + kFs) == 1);
  CHECK(Series(text, "lmcache_mp_l2_load_throughput_GB_per_second_count" + kFs) == 1);
  CHECK(Series(text, "lmcache_mp_num_chunks_loaded_total{model_name=\"m\"}") == 3);
  CHECK(Series(text, "lmcache_mp_l1_write_chunks_total") == 4);  // 3 stored + 1 promoted
}

TEST_CASE("Lmcache L2 fs: a chunk whose file is gone or damaged is a miss") {
  L2Fixture f(/*l1_chunks=*/1);
  f.Store({1, 2, 3});  // L1 holds only 3
  std::filesystem::remove(f.l2->PathOf(2));
  {
    std::ofstream damaged(f.l2->PathOf(1), std::ios::trunc);
    damaged << "not a chunk";
  }
  // The loaded prefix stops at chunk 1, whose file no longer holds chunk 1.
  LoadResult load = f.store->Load("m", {1, 2, 3});
  CHECK(load.l1_chunks == 0);
  CHECK(load.l2_chunks == 0);
  CHECK_FALSE(f.l2->Contains(1));
  CHECK(f.l2->Contains(2));  // not read yet
  load = f.store->Load("m", {2, 3});
  CHECK(load.l2_chunks == 0);
  CHECK_FALSE(f.l2->Contains(2));
  CHECK(f.store->Lookup("m", {1}).hit_chunks == 0);
}

TEST_CASE("Lmcache L2 fs: without an eviction block the pool grows past max_capacity_gb") {
  // Upstream: no "eviction" key, no L2EvictionController (storage_manager.py
  // _should_enable_l2_eviction returns False), whatever max_capacity_gb says.
  L2Fixture f(/*l1_chunks=*/10, /*l2_capacity_chunks=*/3);
  f.Store({1, 2, 3, 4, 5});
  CHECK_FALSE(f.l2->evicts());
  CHECK(f.l2->EvictionTick() == 0);
  CHECK(f.FileSizes().size() == 5);
  CHECK(f.l2->usage_bytes() == 5 * kLlamaChunkBytes);
  CHECK(f.Metric("lmcache_mp_l2_usage_bytes" + kFs) == 5 * kLlamaChunkBytes);
  CHECK(f.Metric("lmcache_mp_l2_evicted_objects_chunks_total" + kFs) == 0);
}

TEST_CASE("Lmcache L2 fs: an eviction block with a capacity evicts LRU files at the watermark") {
  L2Fixture f(/*l1_chunks=*/10, /*l2_capacity_chunks=*/4, L2EvictionOptions{"LRU", 0.75, 0.5});
  REQUIRE(f.l2->evicts());
  f.Store({1, 2});
  CHECK(f.l2->EvictionTick() == 0);  // 2 of 4: below the 0.75 watermark
  f.Store({3, 4});
  CHECK(f.l2->Load({1}).size() == 1);  // 1 is now the most recent in L2
  f.Store({5});                        // stores never make room: 5 of 4
  CHECK(f.FileSizes().size() == 5);
  // Usage 5/4 >= 0.75: half of the 5 held objects (floor), least recently used first.
  CHECK(f.l2->EvictionTick() == 2);
  CHECK(f.FileSizes().size() == 3);
  CHECK(f.l2->Contains(1));
  CHECK_FALSE(f.l2->Contains(2));
  CHECK_FALSE(f.l2->Contains(3));
  CHECK_FALSE(std::filesystem::exists(f.l2->PathOf(2)));
  CHECK(f.l2->EvictionTick() == 1);  // 3/4 is still at the watermark: at least one
  CHECK(f.l2->EvictionTick() == 0);  // 2/4
  CHECK(f.l2->usage_bytes() == 2 * kLlamaChunkBytes);
  CHECK(f.Metric("lmcache_mp_l2_evicted_objects_chunks_total" + kFs) == 3);
  CHECK(f.Metric("lmcache_mp_l2_usage_bytes" + kFs) == 2 * kLlamaChunkBytes);
}

TEST_CASE("Lmcache L2 fs: an eviction block without a capacity, or with noop, never evicts") {
  L2Fixture no_capacity(/*l1_chunks=*/10, /*l2_capacity_chunks=*/0,
                        L2EvictionOptions{"LRU", 0.0, 1.0});
  no_capacity.Store({1, 2});
  CHECK(no_capacity.l2->EvictionTick() == 0);
  L2Fixture noop(/*l1_chunks=*/10, /*l2_capacity_chunks=*/1, L2EvictionOptions{"noop", 0.0, 1.0});
  noop.Store({1, 2});
  CHECK(noop.l2->EvictionTick() == 0);
  CHECK(noop.FileSizes().size() == 2);
}

TEST_CASE("Lmcache L2 fs: files of an earlier run are neither wiped nor hits") {
  TempDir dir;
  std::filesystem::create_directories(dir.File("l2/00"));
  const std::string old_file = dir.File("l2/00/0000000000000007.data");
  { std::ofstream(old_file) << "left by an earlier run"; }
  RealClock clock;
  LmcacheMetrics metrics(LmcacheMetrics::Options{"fs", 1.0, 0});
  L2FsOptions options;
  options.base_path = dir.File("l2");
  absl::StatusOr<std::unique_ptr<L2FsAdapter>> l2 = L2FsAdapter::Create(options, &clock, &metrics);
  REQUIRE(l2.ok());
  CHECK(std::filesystem::exists(old_file));
  CHECK_FALSE((*l2)->Contains(7));
  CHECK((*l2)->Load({7}).empty());
}

TEST_CASE("Lmcache L2 fs: an unusable base_path fails at creation") {
  TempDir dir;
  const std::string file = dir.WriteFile("not-a-dir", "x");
  RealClock clock;
  LmcacheMetrics metrics(LmcacheMetrics::Options{"fs", 1.0, 0});
  L2FsOptions options;
  options.base_path = file + "/l2";
  absl::StatusOr<std::unique_ptr<L2FsAdapter>> l2 = L2FsAdapter::Create(options, &clock, &metrics);
  REQUIRE_FALSE(l2.ok());
  CHECK(l2.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(l2.status().message()), Catch::Contains(options.base_path));
}

}  // namespace
}  // namespace kvbench::sim::lmcache
