// The engine under real multi-turn traffic: the tau2 airline conversations, tokenized through the
// chat template, replayed by a closed-loop client on a virtual clock.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "agent/sim/engine/chat_template.h"
#include "agent/sim/engine/engine_core.h"
#include "agent/sim/engine/tokenizer.h"
#include "tests/unit/agent/sim/engine/core_harness.h"
#include "tests/unit/agent/sim/engine/fake_external_kv_cache.h"
#include "tests/unit/agent/sim/engine/replay_driver.h"
#include "tests/unit/agent/sim/engine/tau2_dataset.h"

namespace kvbench::sim {
namespace {

using testing::CoreHarness;
using testing::FakeExternalKvCache;
using testing::MeanTtft;
using testing::ReplayDriver;
using testing::ReplayResult;
using testing::ReplayRound;
using testing::SumExternalCached;
using testing::SumLocalCached;
using testing::Tau2Session;
using testing::Tau2Sessions;
using testing::TestConfig;

constexpr int64_t kBlock = 16;

std::vector<ReplayRound> Rounds(const Tau2Session& session) {
  std::vector<ReplayRound> rounds;
  for (const auto& row : session.rows) {
    const auto prompt = RenderChat(row.input, /*add_generation_prompt=*/true);
    REQUIRE(prompt.ok());
    rounds.push_back({SimTokenizer::Encode(*prompt), std::max(row.output_length, 1)});
  }
  return rounds;
}

std::vector<std::vector<ReplayRound>> AllSessions() {
  std::vector<std::vector<ReplayRound>> sessions;
  for (const auto& session : Tau2Sessions()) sessions.push_back(Rounds(session));
  return sessions;
}

int64_t CappedHit(int64_t prompt) { return (prompt - 1) / kBlock * kBlock; }

TEST_CASE("EngineCore replaying a conversation hits exactly the cached prefixes", "[sim_engine]") {
  const auto& sessions = Tau2Sessions();
  const auto longest = std::max_element(sessions.begin(), sessions.end(), [](auto& a, auto& b) {
    return a.rows.size() < b.rows.size();
  });
  const std::vector<std::vector<ReplayRound>> conversation = {Rounds(*longest)};
  const auto& rounds = conversation[0];
  REQUIRE(rounds.size() >= 10);

  CoreHarness harness(TestConfig(100000));
  const LatencyModel& latency = harness.core().latency();
  ReplayDriver first_pass(&harness.core(), "pass1");
  const std::vector<ReplayResult> first = first_pass.Run(conversation, 0);
  const int64_t hits_after_first = harness.observer().prefix_hits();
  const int64_t queries_after_first = harness.observer().prefix_queries();
  ReplayDriver second_pass(&harness.core(), "pass2");
  const std::vector<ReplayResult> second = second_pass.Run(conversation, first_pass.now_s() + 10);

  int64_t expected_second_hits = 0;
  int64_t prompt_tokens = 0;
  for (size_t k = 0; k < rounds.size(); ++k) {
    INFO("round " << k);
    const auto p = static_cast<int64_t>(rounds[k].prompt.size());
    prompt_tokens += p;
    // First pass: round k reuses the full blocks of round k-1's prompt (the block where its
    // answer began holds generated tokens, which the recorded answer does not match).
    const int64_t h1 =
        k == 0 ? 0 : static_cast<int64_t>(rounds[k - 1].prompt.size()) / kBlock * kBlock;
    const int64_t h2 = CappedHit(p);
    CHECK(first[k].first.local_cached_tokens == h1);
    CHECK(second[k].first.local_cached_tokens == h2);
    CHECK(second[k].last.output_tokens == rounds[k].max_tokens);
    expected_second_hits += h2;
    // The whole TTFT difference is the prefill the longer hit saved.
    CHECK(first[k].ttft_s() - second[k].ttft_s() ==
          Approx(latency.PrefillChunkSeconds(h1, p - h1) - latency.PrefillChunkSeconds(h2, p - h2))
              .margin(1e-12));
    CHECK(second[k].ttft_s() < first[k].ttft_s());
  }
  CHECK(harness.observer().prefix_hits() - hits_after_first == expected_second_hits);
  CHECK(harness.observer().prefix_queries() - queries_after_first == prompt_tokens);
  CHECK(queries_after_first == prompt_tokens);
  CHECK(harness.observer().preemptions() == 0);
}

// Both passes of all eight conversations at once (closed loop, concurrency 8) on one engine.
struct FleetRun {
  std::vector<ReplayResult> results;  // both passes
  int64_t local_hits = 0;
  int64_t external_hits = 0;
  int64_t preemptions = 0;
};

FleetRun RunFleet(int64_t num_gpu_blocks, bool with_external) {
  EngineConfig config = TestConfig(num_gpu_blocks);
  config.max_num_batched_tokens = 8192;  // vLLM's default budget
  CoreHarness harness(config, with_external ? std::make_unique<FakeExternalKvCache>(256) : nullptr);
  const auto sessions = AllSessions();
  ReplayDriver first(&harness.core(), "pass1");
  FleetRun run;
  run.results = first.Run(sessions, 0);
  ReplayDriver second(&harness.core(), "pass2");
  const auto again = second.Run(sessions, first.now_s());
  run.results.insert(run.results.end(), again.begin(), again.end());
  for (const ReplayResult& result : run.results) {
    REQUIRE(result.last.error.empty());
    REQUIRE(result.last.finished);
  }
  run.local_hits = SumLocalCached(run.results);
  run.external_hits = SumExternalCached(run.results);
  run.preemptions = harness.observer().preemptions();
  CHECK(run.local_hits == harness.observer().prefix_hits());
  return run;
}

TEST_CASE("EngineCore with a GPU pool far smaller than the working set", "[sim_engine]") {
  // The eight conversations' final prompts hold 53k tokens (the longest 14.7k); 1,000 blocks
  // hold 16,000.
  const FleetRun big = RunFleet(100000, false);
  const FleetRun small = RunFleet(1000, false);
  const FleetRun offload = RunFleet(1000, true);
  const double ttft_big = MeanTtft(big.results, 2);
  const double ttft_small = MeanTtft(small.results, 2);
  const double ttft_offload = MeanTtft(offload.results, 2);
  INFO("local hits big " << big.local_hits << " small " << small.local_hits << " offload "
                         << offload.local_hits << " + external " << offload.external_hits);
  INFO("preemptions small " << small.preemptions << " offload " << offload.preemptions);
  INFO("mean TTFT of rounds >= 2: big " << ttft_big << " small " << ttft_small << " offload "
                                        << ttft_offload);

  // Hits fall, preemptions happen, later rounds wait longer for their first token.
  CHECK(big.preemptions == 0);
  CHECK(small.preemptions > 0);
  CHECK(small.local_hits < big.local_hits * 3 / 4);
  CHECK(ttft_small > ttft_big);
  // With a large external cache most of the lost hits come back as external hits, and TTFT
  // lands between the two.
  CHECK(offload.external_hits > 0);
  CHECK(offload.external_hits >= (big.local_hits - offload.local_hits) * 3 / 4);
  CHECK(offload.local_hits + offload.external_hits <= big.local_hits);
  CHECK(ttft_offload > ttft_big);
  CHECK(ttft_offload < ttft_small);
}

}  // namespace
}  // namespace kvbench::sim
