// Was offload exercised: the evidence from the GPU tier's own measurements and from
// what the offload tiers served, and the notes that say how the tiers were routed.

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "controller/results/offload_evidence.h"
#include "controller/results/validity.h"
#include "tests/unit/controller/results/validity_fixture.h"

namespace kvbench::results {
namespace {

using testing::CleanJob;
using testing::CleanPair;
using testing::Codes;
using testing::NoteCodes;
using testing::OnlyVerdict;

v1::EngineMetrics& Engine(ScenarioRun& run) { return *run.result->mutable_engine(); }
v1::LatencyMetrics& Latency(ScenarioRun& run) { return *run.result->mutable_latency(); }

TEST_CASE("Validity: was the offload exercised, one table row each", "[validity]") {
  struct Row {
    const char* name;
    std::function<void(std::vector<ScenarioRun>&)> change;  // runs[0] GPU, runs[1] CPU_RAM
    v1::Verdict verdict;
    const char* code;  // the NOT_EXERCISED reason, or kOffloadExercised's note when VALID
    std::vector<std::string> message_parts;
  };
  auto gpu_got_the_reuse = [](std::vector<ScenarioRun>& runs) {
    Latency(runs[0]).set_cached_tokens_total(79000);  // of 80,000 reusable
  };
  auto offload_idle = [](std::vector<ScenarioRun>& runs) {
    Engine(runs[1]).set_external_hit_tokens(0);
    Engine(runs[1]).set_external_hit_rate(0);
    runs[1].result->mutable_lmcache()->set_chunks_loaded(0);
  };
  auto reuse_unknown = [](std::vector<ScenarioRun>& runs) {
    Latency(runs[0]).clear_reuse_any_user_pct();
    Latency(runs[0]).clear_reuse_same_user_pct();
  };
  const Row rows[] = {
      {"GPU missed half the reuse, CPU_RAM served: VALID with the evidence",
       [](auto&) {},
       v1::VERDICT_VALID,
       kOffloadExercised,
       {"the GPU tier ran short of KV cache (its own prefix cache served 50.0% of the reusable "
        "prompt tokens (40,000 of 80,000); 0 preemptions; KV cache usage peaked at 60.0%",
        "CPU_RAM served 30,000 prompt tokens (117 LMCache chunks loaded)"}},
      {"GPU got the reuse, external hits anyway (2 replicas): NOT_EXERCISED",
       gpu_got_the_reuse,
       v1::VERDICT_NOT_EXERCISED,
       kGpuNeverRanShort,
       {"the GPU tier never ran short of KV cache (its own prefix cache served 98.8% of the "
        "reusable prompt tokens (79,000 of 80,000); 0 preemptions; KV cache usage peaked at 60.0%",
        "what offload served (CPU_RAM served 30,000 prompt tokens", "not capacity the GPU lacked",
        "the deltas are not an offload effect"}},
      {"GPU got the reuse and offload served nothing: NOT_EXERCISED",
       [&](auto& runs) {
         gpu_got_the_reuse(runs);
         offload_idle(runs);
       },
       v1::VERDICT_NOT_EXERCISED,
       kGpuNeverRanShort,
       {"never ran short",
        "offload served nothing (CPU_RAM 0 external-hit tokens, 0 LMCache "
        "chunks loaded)"}},
      {"GPU ran short but offload served nothing: NOT_EXERCISED",
       offload_idle,
       v1::VERDICT_NOT_EXERCISED,
       kOffloadServedNothing,
       {"the GPU tier ran short of KV cache (its own prefix cache served 50.0%",
        "but offload served nothing (CPU_RAM 0 external-hit tokens"}},
      {"exactly the threshold share of the reuse: never ran short",
       [](auto& runs) { Latency(runs[0]).set_cached_tokens_total(76000); },
       v1::VERDICT_NOT_EXERCISED,
       kGpuNeverRanShort,
       {"served 95.0% of the reusable prompt tokens (76,000 of 80,000)"}},
      {"GPU got the reuse but preempted: VALID, the preemptions first",
       [&](auto& runs) {
         gpu_got_the_reuse(runs);
         Engine(runs[0]).set_num_preemptions(4);
       },
       v1::VERDICT_VALID,
       kOffloadExercised,
       {"the GPU tier ran short of KV cache (4 preemptions; its own prefix cache served 98.8%"}},
      // One scrape of one replica read 98.5% while the GPU tier's own cache served
      // every reusable token with 0 preemptions; the peak no longer outvotes the reuse.
      {"GPU got the reuse, one scrape read its KV blocks full: NOT_EXERCISED",
       [&](auto& runs) {
         gpu_got_the_reuse(runs);
         Engine(runs[0]).set_kv_cache_usage_max(0.985);
       },
       v1::VERDICT_NOT_EXERCISED,
       kGpuNeverRanShort,
       {"never ran short of KV cache (its own prefix cache served 98.8%",
        "KV cache usage peaked at 98.5% (one scrape: not deciding)"}},
      {"reuse unknown, its KV blocks full: VALID",
       [&](auto& runs) {
         reuse_unknown(runs);
         runs[0].result->clear_peak_concurrent_tokens();
         Engine(runs[0]).set_kv_cache_usage_max(0.97);
       },
       v1::VERDICT_VALID,
       kOffloadExercised,
       {"the GPU tier ran short of KV cache (KV cache usage peaked at 97.0%"}},
      {"no cached_tokens in the responses: the prefix-cache hit counter",
       [](auto& runs) {
         Latency(runs[0]).clear_cached_tokens_total();
         Engine(runs[0]).set_prefix_cache_hit_tokens(79000);
       },
       v1::VERDICT_NOT_EXERCISED,
       kGpuNeverRanShort,
       {"(79,000 of 80,000)"}},
      {"per request: the users' own earlier rounds all served from cache",
       [](auto& runs) {
         Latency(runs[0]).set_same_user_reusable_tokens(60000);
         Latency(runs[0]).set_same_user_reusable_cached_tokens(59500);
       },
       v1::VERDICT_NOT_EXERCISED,
       kGpuNeverRanShort,
       {"(its own prefix cache served 99.2% of the prompt tokens its users' earlier rounds had "
        "computed (59,500 of 60,000)"}},
      {"per request: a quarter of it evicted, even though the aggregate looks whole",
       [](auto& runs) {
         Latency(runs[0]).set_cached_tokens_total(82000);  // 102.5% of the chunk reuse
         Latency(runs[0]).set_same_user_reusable_tokens(60000);
         Latency(runs[0]).set_same_user_reusable_cached_tokens(45000);
       },
       v1::VERDICT_VALID,
       kOffloadExercised,
       {"(its own prefix cache served 75.0% of the prompt tokens its users' earlier rounds had "
        "computed (45,000 of 60,000)"}},
      {"only the same-user reuse reported",
       [](auto& runs) {
         Latency(runs[0]).clear_reuse_any_user_pct();
         Latency(runs[0]).set_reuse_same_user_pct(40);  // 40,000 reusable: all served
       },
       v1::VERDICT_NOT_EXERCISED,
       kGpuNeverRanShort,
       {"served 100.0% of the reusable prompt tokens (40,000 of 40,000)"}},
      {"reuse unknown, working set above capacity: VALID",
       reuse_unknown,
       v1::VERDICT_VALID,
       kOffloadExercised,
       {"working set peak 120,000 tokens exceeds its KV capacity of 2 replicas x 1,024 blocks x "
        "16 tokens = 32,768 tokens"}},
      {"reuse unknown, working set fits: NOT_EXERCISED",
       [&](auto& runs) {
         reuse_unknown(runs);
         runs[0].result->set_peak_concurrent_tokens(32768);
       },
       v1::VERDICT_NOT_EXERCISED,
       kGpuNeverRanShort,
       {"working set peak 32,768 tokens fits its KV capacity"}},
      {"reuse and working set unknown: not shown",
       [&](auto& runs) {
         reuse_unknown(runs);
         runs[0].result->clear_peak_concurrent_tokens();
       },
       v1::VERDICT_NOT_EXERCISED,
       kExerciseUnknown,
       {"nothing measured shows that the GPU tier ran short of KV cache (0 preemptions; KV cache "
        "usage peaked at 60.0%)",
        "CPU_RAM served 30,000 prompt tokens", "offload was not shown to be exercised"}},
      {"a result without the hit-token counter: its external hit rate",
       [](auto& runs) { Engine(runs[1]).clear_external_hit_tokens(); },
       v1::VERDICT_VALID,
       kOffloadExercised,
       {"CPU_RAM external hit rate 40.0%"}},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    std::vector<ScenarioRun> runs = CleanPair();
    row.change(runs);
    const v1::Validity validity = OnlyVerdict(runs);
    CHECK(validity.verdict() == row.verdict);
    std::string message;
    if (row.verdict == v1::VERDICT_VALID) {
      CHECK(validity.reasons().empty());
      for (const v1::ValidityReason& note : validity.notes()) {
        if (note.code() == row.code) message = note.message();
      }
    } else {
      REQUIRE(Codes(validity) == std::vector<std::string>{row.code});
      message = validity.reasons(0).message();
    }
    INFO(message);
    for (const std::string& part : row.message_parts) CHECK_THAT(message, Catch::Contains(part));
  }
}

TEST_CASE("Validity names each offload tier that served and each that did not", "[validity]") {
  std::vector<ScenarioRun> runs = RunsOfJob(CleanJob({v1::GPU, v1::CPU_RAM, v1::NVME}, {8}));
  Engine(runs[2]).set_external_hit_tokens(0);
  runs[2].result->mutable_lmcache()->set_chunks_loaded(0);
  const v1::Validity validity = OnlyVerdict(runs);
  CHECK(validity.verdict() == v1::VERDICT_VALID);
  REQUIRE(NoteCodes(validity).back() == kOffloadExercised);
  CHECK_THAT(validity.notes(validity.notes_size() - 1).message(),
             Catch::EndsWith("; CPU_RAM served 30,000 prompt tokens (117 LMCache chunks loaded); "
                             "NVME 0 external-hit tokens, 0 LMCache chunks loaded"));
}

TEST_CASE("Validity decides nothing about offload when the group is INVALID", "[validity]") {
  std::vector<ScenarioRun> runs = CleanPair();
  Latency(runs[0]).set_cached_tokens_total(79000);
  runs[1].spec.set_isl(4096);
  const v1::Validity validity = OnlyVerdict(runs);
  CHECK(validity.verdict() == v1::VERDICT_INVALID);
  CHECK(Codes(validity) == std::vector<std::string>{kParameterDiffers});
}

TEST_CASE("Validity notes routing as a factor over 2+ replicas", "[validity]") {
  struct Row {
    const char* name;
    std::function<void(std::vector<ScenarioRun>&)> change;
    bool noted;
  };
  const Row rows[] = {
      {"2 replicas, offload least_conn by default", [](auto&) {}, true},
      {"offload_routing STICKY",
       [](auto& runs) {
         for (ScenarioRun& run : runs) run.spec.set_offload_routing(v1::OFFLOAD_ROUTING_STICKY);
       },
       false},
      {"one replica",
       [](auto& runs) {
         for (ScenarioRun& run : runs) run.spec.set_replicas(1);
         for (ScenarioRun& run : runs) Engine(run).set_num_gpu_blocks(2 * testing::kGpuBlocks);
       },
       false},
      {"the agent recorded sticky routing",
       [](auto& runs) { runs[1].result->set_routing("sticky"); }, false},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    std::vector<ScenarioRun> runs = CleanPair();
    row.change(runs);
    const v1::Validity validity = OnlyVerdict(runs);
    CHECK(validity.verdict() == v1::VERDICT_VALID);  // a note never changes the verdict
    const std::vector<std::string> notes = NoteCodes(validity);
    const bool noted = std::find(notes.begin(), notes.end(), kRoutingDiffers) != notes.end();
    CHECK(noted == row.noted);
    if (noted) {
      CHECK_THAT(validity.notes(0).message(),
                 Catch::StartsWith("CPU_RAM ran least_conn over 2 replicas sharing one LMCache, "
                                   "the GPU tier sticky by X-User-Id: the deltas include routing"));
    }
  }
}

TEST_CASE("Validity: least_conn on the simulated engine says what still varies", "[validity]") {
  std::vector<ScenarioRun> runs = CleanPair();
  for (ScenarioRun& run : runs) run.spec.set_engine(v1::SIM);
  const v1::Validity simulated = OnlyVerdict(runs);
  REQUIRE(simulated.notes_size() > 0);
  CHECK(simulated.notes(0).code() == kRoutingDiffers);
  CHECK_THAT(simulated.notes(0).message(),
             Catch::Contains("least_conn breaks ties at random, so with one seed CPU_RAM still "
                             "differ from run to run on the simulated engine"));
  for (ScenarioRun& run : runs) run.spec.set_engine(v1::VLLM);
  const v1::Validity real = OnlyVerdict(runs);
  REQUIRE(real.notes_size() > 0);
  CHECK(real.notes(0).code() == kRoutingDiffers);
  CHECK_THAT(real.notes(0).message(), !Catch::Contains("ties at random"));
}

TEST_CASE("AssessGpuPressure: unknown without any measurement", "[validity]") {
  std::vector<ScenarioRun> runs = CleanPair();
  runs[0].result->clear_engine();
  runs[0].result->clear_latency();
  runs[0].result->clear_peak_concurrent_tokens();
  const GpuPressure pressure = AssessGpuPressure(runs[0]);
  CHECK(pressure.finding == GpuPressure::Finding::kUnknown);
  CHECK(pressure.facts.empty());
}

}  // namespace
}  // namespace kvbench::results
