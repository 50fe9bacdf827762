#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/sim/engine/block_hasher.h"
#include "agent/sim/engine/engine_core.h"
#include "tests/unit/agent/sim/engine/core_harness.h"
#include "tests/unit/agent/sim/engine/fake_external_kv_cache.h"

namespace kvbench::sim {
namespace {

using testing::CoreHarness;
using testing::FakeExternalKvCache;
using testing::TestConfig;
using testing::TestPrompt;

constexpr int64_t kChunkBytes = 256 * 131072;  // Llama-3.1-8B, whole model

CoreHarness WithExternal(int64_t num_gpu_blocks = 1000) {
  return CoreHarness(TestConfig(num_gpu_blocks), std::make_unique<FakeExternalKvCache>(256));
}

std::vector<uint64_t> Chunks(const std::vector<uint32_t>& prompt, size_t count) {
  std::vector<uint64_t> chunks = BlockHasher::ChainHashes(prompt, 256);
  chunks.resize(count);
  return chunks;
}

TEST_CASE("EngineCore loads the chunk-aligned prefix beyond the GPU hit from the external cache",
          "[sim_engine]") {
  struct Case {
    const char* name;
    size_t prompt;
    size_t warm_prefix;  // a request first computes this many leading tokens on the GPU
    size_t external_chunks;
    int expected_local;
    int expected_external;
    std::vector<size_t> loaded;  // chunk indices passed to Load
  };
  const Case cases[] = {
      {"external only", 1000, 0, 3, 0, 768, {0, 1, 2}},
      {"beyond a GPU hit", 1000, 520, 3, 512, 256, {2}},
      {"GPU hit covers it", 1000, 800, 3, 800, 0, {}},
      {"capped below the prompt", 512, 0, 2, 0, 511, {0, 1}},
      {"nothing external", 1000, 0, 0, 0, 0, {}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CoreHarness harness = WithExternal();
    const std::vector<uint32_t> prompt = TestPrompt(c.prompt);
    if (c.warm_prefix > 0) {
      harness.Submit("warm", std::vector<uint32_t>(prompt.begin(), prompt.begin() + c.warm_prefix),
                     1);
      harness.RunUntilIdle();
    }
    FakeExternalKvCache& external = *harness.external();
    external.Put(Chunks(prompt, c.external_chunks));
    const int64_t loads_before = static_cast<int64_t>(external.load_log().size());
    const int64_t queries_before = harness.observer().external_queries();
    const int64_t hits_before = harness.observer().external_hits();
    const double start = harness.now_s();

    harness.Submit("r", prompt, 2);
    harness.RunUntilIdle();
    const RequestOutput& out = harness.last("r");
    CHECK(out.local_cached_tokens == c.expected_local);
    CHECK(out.external_cached_tokens == c.expected_external);
    CHECK(harness.observer().external_queries() - queries_before ==
          static_cast<int64_t>(c.prompt) - c.expected_local);
    CHECK(harness.observer().external_hits() - hits_before == c.expected_external);
    std::vector<uint64_t> loaded(external.load_log().begin() + loads_before,
                                 external.load_log().end());
    const std::vector<uint64_t> all = BlockHasher::ChainHashes(prompt, 256);
    std::vector<uint64_t> expected_loaded;
    for (size_t index : c.loaded) expected_loaded.push_back(all[index]);
    CHECK(loaded == expected_loaded);

    // TTFT: one step with the load time of the loaded chunks and the prefill of the rest.
    const LatencyModel& latency = harness.core().latency();
    const int64_t computed = c.expected_local + c.expected_external;
    CHECK(out.timings.arrival_s == start);
    CHECK(harness.Ttft("r") ==
          Approx(TestConfig(1).latency.step_overhead_s +
                 latency.PrefillChunkSeconds(computed, static_cast<int64_t>(c.prompt) - computed) +
                 latency.ExternalLoadSeconds(static_cast<int>(c.loaded.size()), 0)));
  }
}

TEST_CASE("EngineCore stores the computed prompt chunks with the whole model's bytes",
          "[sim_engine]") {
  CoreHarness harness = WithExternal();
  const std::vector<uint32_t> prompt = TestPrompt(1000);
  harness.external()->Put(Chunks(prompt, 1));
  harness.Submit("r", prompt, 3);
  harness.RunUntilIdle();
  FakeExternalKvCache& external = *harness.external();
  CHECK(external.store_calls() == 1);
  // Chunks 1 and 2 were computed (chunk 0 was loaded); the partial chunk is not stored.
  const std::vector<uint64_t> all = BlockHasher::ChainHashes(prompt, 256);
  CHECK(external.store_log() == std::vector<uint64_t>{all[1], all[2]});
  CHECK(external.last_bytes_per_chunk() == kChunkBytes);
  CHECK(harness.core().chunk_bytes() == kChunkBytes);

  // A prompt without a full chunk is looked up in neither direction.
  harness.Submit("short", TestPrompt(200, 9), 2);
  harness.RunUntilIdle();
  CHECK(external.lookup_calls() == 1);
  CHECK(external.store_calls() == 1);
  CHECK(harness.observer().external_lookups() == 2);  // both still count their queries
}

TEST_CASE("EngineCore chunk names are equal across engine instances", "[sim_engine]") {
  CoreHarness a = WithExternal();
  CoreHarness b = WithExternal(5000);
  const std::vector<uint32_t> prompt = TestPrompt(2000, 42);
  a.Submit("replica-a-request", prompt, 2);
  b.Submit("replica-b-request", prompt, 9);
  a.RunUntilIdle();
  b.RunUntilIdle();
  REQUIRE(a.external()->store_log().size() == 7);
  CHECK(a.external()->store_log() == b.external()->store_log());
  CHECK(a.external()->store_log() == BlockHasher::ChainHashes(prompt, 256));
}

TEST_CASE("EngineCore charges disk reads for chunks only in L2", "[sim_engine]") {
  CoreHarness harness = WithExternal();
  const std::vector<uint32_t> prompt = TestPrompt(1000);
  harness.external()->Put(Chunks(prompt, 3));
  harness.external()->DemoteAllToL2();
  harness.Submit("r", prompt, 2);
  harness.RunUntilIdle();
  CHECK(harness.external()->loaded_l2_chunks() == 3);
  const LatencyModel& latency = harness.core().latency();
  CHECK(harness.Ttft("r") ==
        Approx(TestConfig(1).latency.step_overhead_s + latency.PrefillChunkSeconds(768, 232) +
               latency.ExternalLoadSeconds(0, 3)));
  CHECK(latency.ExternalLoadSeconds(0, 3) > latency.ExternalLoadSeconds(3, 0));
}

TEST_CASE("EngineCore recomputes when the external cache fails", "[sim_engine]") {
  const std::vector<uint32_t> prompt = TestPrompt(1000);
  for (const bool fail_lookup : {true, false}) {
    INFO((fail_lookup ? "lookup fails" : "load fails"));
    CoreHarness harness = WithExternal();
    harness.external()->Put(Chunks(prompt, 3));
    harness.external()->set_fail_lookups(fail_lookup);
    harness.external()->set_fail_loads(!fail_lookup);
    harness.Submit("r", prompt, 2);
    harness.RunUntilIdle();
    CHECK(harness.last("r").output_tokens == 2);
    CHECK(harness.last("r").external_cached_tokens == 0);
    // A hit whose load fails still counts as a hit (vLLM after #30522).
    CHECK(harness.observer().external_hits() == (fail_lookup ? 0 : 768));
    CHECK(harness.Ttft("r") == Approx(TestConfig(1).latency.step_overhead_s +
                                      harness.core().latency().PrefillChunkSeconds(0, 1000)));
  }
}

// Upstream's lookup semantics (prefix_lookup.h): vLLM's scheduler asks the connector on every
// step the head of the queue waits, LMCache's connector answers from the request's one LOOKUP.
TEST_CASE("EngineCore looks a waiting request up in the external cache once, until admitted",
          "[sim_engine]") {
  CoreHarness harness = WithExternal(/*num_gpu_blocks=*/100);  // 1,600 tokens: one request fits
  const std::vector<uint32_t> first = TestPrompt(1000, 1);
  const std::vector<uint32_t> queued = TestPrompt(1000, 2);
  harness.Submit("first", first, 20);
  harness.Submit("queued", queued, 2);
  harness.Step();
  harness.Step();  // "queued" waits for blocks: it has been looked up (and failed to allocate)
  REQUIRE(harness.outputs("queued").empty());
  const int lookups_while_waiting = harness.external()->lookup_calls();
  CHECK(lookups_while_waiting == 2);
  // Chunks that appear after its lookup do not count: the connector answers from that lookup.
  harness.external()->Put(Chunks(queued, 3));
  harness.RunUntilIdle();
  CHECK(harness.last("queued").output_tokens == 2);
  CHECK(harness.external()->lookup_calls() == 2);  // not once per step it waited
  CHECK(harness.last("queued").external_cached_tokens == 0);
  CHECK(harness.observer().preemptions() == 0);
}

TEST_CASE("EngineCore looks a preempted request up again when it is readmitted", "[sim_engine]") {
  // Two requests that fit together at first, then outgrow the pool while decoding: the newer is
  // preempted and readmitted (vLLM's connector sends a new lookup after the earlier admission
  // dropped it).
  CoreHarness harness = WithExternal(/*num_gpu_blocks=*/40);  // 640 tokens
  harness.Submit("a", TestPrompt(256, 1), 150);
  harness.Submit("b", TestPrompt(256, 2), 150);
  harness.RunUntilIdle();
  REQUIRE(harness.observer().preemptions() >= 1);
  CHECK(harness.external()->lookup_calls() == 2 + harness.observer().preemptions());
}

// vllm:external_prefix_cache_queries_total by scheduler generation (EngineConfig::
// external_query_counting); the hits count the same in both.
TEST_CASE("EngineCore counts external queries as prompt minus local hits, or the whole prompt",
          "[sim_engine]") {
  struct Case {
    const char* name;
    ExternalQueryCounting counting;
    int64_t queries;  // over the sequence below
  };
  // 1000 tokens, 3 chunks external; then the same prompt again: 992 local hits (62 blocks; the
  // last token is always recomputed), nothing beyond them external.
  const Case cases[] = {
      {"prompt minus local", ExternalQueryCounting::kPromptMinusLocal, 1000 + (1000 - 992)},
      {"whole prompt", ExternalQueryCounting::kWholePrompt, 1000 + 1000},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    EngineConfig config = TestConfig(1000);
    config.external_query_counting = c.counting;
    CoreHarness harness(config, std::make_unique<FakeExternalKvCache>(256));
    const std::vector<uint32_t> prompt = TestPrompt(1000);
    harness.external()->Put(Chunks(prompt, 3));
    harness.Submit("first", prompt, 2);
    harness.RunUntilIdle();
    harness.Submit("again", prompt, 2);
    harness.RunUntilIdle();
    REQUIRE(harness.last("again").local_cached_tokens == 992);
    CHECK(harness.observer().external_lookups() == 2);
    CHECK(harness.observer().external_queries() == c.queries);
    CHECK(harness.observer().external_hits() == 768);
  }
  CHECK(TestConfig(1).external_query_counting == ExternalQueryCounting::kPromptMinusLocal);
}

}  // namespace
}  // namespace kvbench::sim
