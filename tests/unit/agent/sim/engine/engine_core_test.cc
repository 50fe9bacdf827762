#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/sim/engine/engine_core.h"
#include "tests/unit/agent/sim/engine/core_harness.h"

namespace kvbench::sim {
namespace {

using testing::CoreHarness;
using testing::TestConfig;
using testing::TestPrompt;

TEST_CASE("EngineCore prefix hits are whole blocks capped below the prompt length",
          "[sim_engine]") {
  struct Case {
    size_t prompt;
    int expected_hit;
  };
  // floor((P-1)/16)*16: the last prompt token is always recomputed (vllm.md 1.5).
  const Case cases[] = {{100, 96}, {32, 16}, {33, 32}, {17, 16}, {16, 0}, {1, 0}, {4000, 3984}};
  for (const Case& c : cases) {
    INFO("prompt " << c.prompt);
    CoreHarness harness(TestConfig(1000));
    harness.Submit("cold", TestPrompt(c.prompt), 4);
    harness.RunUntilIdle();
    harness.Submit("warm", TestPrompt(c.prompt), 4);
    harness.RunUntilIdle();
    CHECK(harness.last("cold").local_cached_tokens == 0);
    CHECK(harness.last("warm").local_cached_tokens == c.expected_hit);
    CHECK(harness.last("warm").external_cached_tokens == 0);
    CHECK(harness.observer().prefix_queries() == static_cast<int64_t>(2 * c.prompt));
    CHECK(harness.observer().prefix_hits() == c.expected_hit);
    CHECK(harness.observer().external_lookups() == 0);  // no connector

    // The cached prompt's TTFT is lower by exactly the prefill the hit saved.
    const LatencyModel& latency = harness.core().latency();
    const double overhead = TestConfig(1).latency.step_overhead_s;
    const auto p = static_cast<int64_t>(c.prompt);
    CHECK(harness.Ttft("cold") == Approx(overhead + latency.PrefillChunkSeconds(0, p)));
    CHECK(harness.Ttft("warm") ==
          Approx(overhead + latency.PrefillChunkSeconds(c.expected_hit, p - c.expected_hit)));
  }
}

TEST_CASE("EngineCore without prefix caching never hits", "[sim_engine]") {
  EngineConfig config = TestConfig(1000);
  config.enable_prefix_caching = false;
  CoreHarness harness(config);
  harness.Submit("a", TestPrompt(100), 2);
  harness.RunUntilIdle();
  harness.Submit("b", TestPrompt(100), 2);
  harness.RunUntilIdle();
  CHECK(harness.last("b").local_cached_tokens == 0);
  CHECK(harness.observer().prefix_hits() == 0);
}

TEST_CASE("EngineCore respects max_num_seqs and the token budget", "[sim_engine]") {
  EngineConfig config = TestConfig(10000);
  config.max_num_seqs = 4;
  config.max_num_batched_tokens = 512;
  CoreHarness harness(config);
  for (int i = 0; i < 20; ++i) {
    harness.Submit(absl::StrCat("r", i),
                   TestPrompt(300 + static_cast<size_t>(i) * 37, static_cast<uint32_t>(i + 1)), 10);
  }
  harness.RunUntilIdle();
  const auto steps = harness.observer().steps();
  REQUIRE_FALSE(steps.empty());
  int max_running = 0;
  for (const auto& step : steps) {
    CHECK(step.running <= 4);
    CHECK(step.scheduled_tokens <= 512);
    CHECK(step.scheduled_tokens > 0);
    max_running = std::max(max_running, step.running);
  }
  CHECK(max_running == 4);
  CHECK(steps.back().running == 0);
  CHECK(steps.back().waiting == 0);
  CHECK(steps.back().kv_cache_usage == 0);
  for (int i = 0; i < 20; ++i) CHECK(harness.last(absl::StrCat("r", i)).output_tokens == 10);
}

TEST_CASE("EngineCore chunks a long prefill over the token budget", "[sim_engine]") {
  EngineConfig config = TestConfig(10000);
  config.max_num_batched_tokens = 512;
  CoreHarness harness(config);
  harness.Submit("long", TestPrompt(3000), 1);
  harness.RunUntilIdle();
  // ceil(3000 / 512) = 6 steps, each one overhead plus its chunk of the same total prefill.
  REQUIRE(harness.step_durations().size() == 6);
  const LatencyModel& latency = harness.core().latency();
  CHECK(harness.Ttft("long") ==
        Approx(6 * config.latency.step_overhead_s + latency.PrefillChunkSeconds(0, 3000)));
}

TEST_CASE("EngineCore queue time runs from arrival to first scheduling", "[sim_engine]") {
  EngineConfig config = TestConfig(10000);
  config.max_num_seqs = 1;
  CoreHarness harness(config);
  harness.Submit("first", TestPrompt(200, 1), 5);
  harness.Submit("second", TestPrompt(200, 2), 5);
  harness.RunUntilIdle();
  const RequestTimings a = harness.last("first").timings;
  const RequestTimings b = harness.last("second").timings;
  CHECK(a.scheduled_s == a.arrival_s);
  CHECK(b.arrival_s == 0);
  CHECK(b.scheduled_s == a.finished_s);  // it waited for the only slot
  CHECK(b.first_token_s > b.scheduled_s);
  const auto finished = harness.observer().finished();
  REQUIRE(finished.size() == 2);
  CHECK(finished[0].inter_token_s.size() == 4);
  for (double gap : finished[0].inter_token_s) CHECK(gap > 0);
}

TEST_CASE("EngineCore generates exactly max_tokens with ignore_eos", "[sim_engine]") {
  for (int max_tokens : {1, 2, 17, 300}) {
    INFO("max_tokens " << max_tokens);
    CoreHarness harness(TestConfig(1000));
    harness.Submit("r", TestPrompt(50), max_tokens, /*ignore_eos=*/true);
    harness.RunUntilIdle();
    const auto& outputs = harness.outputs("r");
    REQUIRE(outputs.size() == static_cast<size_t>(max_tokens));
    CHECK(outputs.front().first);
    for (size_t i = 0; i < outputs.size(); ++i) {
      CHECK(outputs[i].new_tokens.size() == 1);
      CHECK(outputs[i].output_tokens == static_cast<int>(i) + 1);
      CHECK(outputs[i].finished == (i + 1 == outputs.size()));
    }
    CHECK(outputs.back().finish_reason == FinishReason::kLength);
    CHECK(outputs.back().error.empty());
  }
}

TEST_CASE("EngineCore output lengths and tokens are seeded draws", "[sim_engine]") {
  auto run = [](uint64_t seed) {
    EngineConfig config = TestConfig(100000);
    config.seed = seed;
    config.mean_output_tokens = 40;
    CoreHarness harness(config);
    for (int i = 0; i < 40; ++i) harness.Submit(absl::StrCat("q", i), TestPrompt(20), 100, false);
    harness.RunUntilIdle();
    std::vector<std::vector<uint32_t>> tokens;
    int stopped = 0;
    for (int i = 0; i < 40; ++i) {
      const auto& outputs = harness.outputs(absl::StrCat("q", i));
      const RequestOutput& last = outputs.back();
      CHECK(last.output_tokens <= 100);
      CHECK(last.output_tokens >= 1);
      CHECK((last.finish_reason == FinishReason::kLength) == (last.output_tokens == 100));
      if (last.finish_reason == FinishReason::kStop) ++stopped;
      std::vector<uint32_t> ids;
      for (const auto& output : outputs) ids.push_back(output.new_tokens.at(0));
      tokens.push_back(ids);
    }
    CHECK(stopped > 20);  // mean 40 of at most 100: most end on their own
    return tokens;
  };
  const auto a = run(1);
  CHECK(a == run(1));
  CHECK(a != run(2));
}

TEST_CASE("EngineCore fails a request larger than the whole cache cleanly", "[sim_engine]") {
  CoreHarness harness(TestConfig(8));  // 128 tokens
  harness.Submit("huge", TestPrompt(200), 4);
  harness.Submit("fits", TestPrompt(100), 20);   // 119 tokens of KV: 8 blocks
  harness.Submit("grows", TestPrompt(100), 40);  // 139 tokens: 9 blocks
  REQUIRE(harness.outputs("huge").size() == 1);
  const RequestOutput& huge = harness.last("huge");
  CHECK(huge.finished);
  CHECK(huge.finish_reason == FinishReason::kAbort);
  CHECK(huge.error ==
        "the request needs 13 KV blocks (200 prompt + 4 output tokens) but the "
        "GPU cache holds only 8");
  CHECK_FALSE(harness.last("grows").error.empty());
  harness.RunUntilIdle();
  CHECK(harness.last("fits").output_tokens == 20);
  CHECK(harness.last("fits").error.empty());
  CHECK(harness.observer().prefix_queries() == 100);  // refused requests never reach the cache
}

TEST_CASE("EngineCore refuses empty prompts duplicate ids and prompts past max_model_len",
          "[sim_engine]") {
  EngineConfig config = TestConfig(1000);
  config.max_model_len = 128;
  CoreHarness harness(config);
  harness.Submit("empty", {}, 4);
  harness.Submit("long", TestPrompt(128), 4);
  harness.Submit("dup", TestPrompt(10), 4);
  harness.Submit("dup", TestPrompt(10), 4);
  harness.Submit("clamped", TestPrompt(120), 50);
  CHECK(harness.last("empty").error == "the prompt is empty");
  CHECK(harness.last("long").error == "the prompt has 128 tokens; max_model_len is 128");
  CHECK(harness.last("dup").error == "duplicate request id dup");
  harness.RunUntilIdle();
  CHECK(harness.last("clamped").output_tokens == 8);  // as vLLM clamps max_tokens
  CHECK(harness.last("clamped").finish_reason == FinishReason::kLength);
}

TEST_CASE("EngineCore preempts the newest request when blocks run out", "[sim_engine]") {
  CoreHarness harness(TestConfig(10));  // 160 tokens
  // Each needs (48 + 60 - 1) / 16 -> 7 blocks: both fit alone, not together.
  harness.Submit("old", TestPrompt(48, 1), 60);
  harness.Submit("new", TestPrompt(48, 2), 60);
  harness.RunUntilIdle();
  CHECK(harness.observer().preemptions() >= 1);
  CHECK(harness.last("old").output_tokens == 60);
  CHECK(harness.last("new").output_tokens == 60);
  // The oldest request keeps running: it finishes first.
  CHECK(harness.last("old").timings.finished_s < harness.last("new").timings.finished_s);
  // Re-admissions after preemption are not counted as lookups (vLLM).
  CHECK(harness.observer().prefix_queries() == 96);
  const auto finished = harness.observer().finished();
  REQUIRE(finished.size() == 2);
  // The preempted request's tokens keep coming in order, its timings unchanged by preemption.
  const auto& outputs = harness.outputs("new");
  for (size_t i = 0; i < outputs.size(); ++i) {
    CHECK(outputs[i].output_tokens == static_cast<int>(i) + 1);
  }
  CHECK(outputs.back().timings.scheduled_s == 0);
  CHECK(harness.core().blocks().num_used_blocks() == 0);
}

TEST_CASE("EngineCore aborts waiting and running requests", "[sim_engine]") {
  EngineConfig config = TestConfig(1000);
  config.max_num_seqs = 1;
  CoreHarness harness(config);
  harness.Submit("running", TestPrompt(64, 1), 100);
  harness.Submit("waiting", TestPrompt(64, 2), 100);
  harness.Step();
  harness.Step();
  CHECK(harness.core().blocks().num_used_blocks() > 0);
  for (const char* id : {"running", "waiting"}) {
    auto aborted = harness.core().Abort(id, harness.now_s());
    REQUIRE(aborted.has_value());
    aborted->Deliver();
    CHECK(harness.last(id).finished);
    CHECK(harness.last(id).finish_reason == FinishReason::kAbort);
    CHECK(harness.last(id).timings.finished_s == harness.now_s());
  }
  CHECK(harness.last("running").output_tokens == 2);
  CHECK_FALSE(harness.core().Abort("running", 0).has_value());  // finished: a no-op
  CHECK_FALSE(harness.core().HasWork());
  CHECK(harness.core().blocks().num_used_blocks() == 0);
  const auto finished = harness.observer().finished();
  REQUIRE(finished.size() == 2);
  CHECK(finished[1].reason == FinishReason::kAbort);
}

TEST_CASE("EngineCore waits for requests that arrive later", "[sim_engine]") {
  CoreHarness harness(TestConfig(1000));
  harness.SubmitAt(5.0, "later", TestPrompt(64), 2);
  harness.Step();
  CHECK(harness.last("later").timings.scheduled_s == 5.0);
  harness.RunUntilIdle();
  CHECK(harness.last("later").timings.arrival_s == 5.0);
}

TEST_CASE("EngineCore decode steps grow with batch size and context", "[sim_engine]") {
  // The duration of a pure decode step with `batch` requests of `prompt` tokens each.
  auto decode_step = [](int batch, size_t prompt) {
    EngineConfig config = TestConfig(100000);
    config.max_num_batched_tokens = 1 << 20;  // every prefill in one step
    CoreHarness harness(config);
    for (int i = 0; i < batch; ++i) {
      harness.Submit(absl::StrCat("d", i), TestPrompt(prompt, static_cast<uint32_t>(i + 1)), 8);
    }
    harness.Step();         // prefill of all of them
    return harness.Step();  // all decode
  };
  struct Case {
    int batch;
    size_t prompt;
  };
  const Case cases[] = {{1, 100}, {1, 4000}, {8, 4000}, {32, 4000}, {32, 8000}};
  double previous = 0;
  for (const Case& c : cases) {
    INFO("batch " << c.batch << " prompt " << c.prompt);
    const double seconds = decode_step(c.batch, c.prompt);
    CHECK(seconds > previous);
    previous = seconds;
  }
  CoreHarness one(TestConfig(100000));
  one.Submit("solo", TestPrompt(100), 8);
  one.Step();
  const LatencyModel& latency = one.core().latency();
  CHECK(one.Step() == Approx(TestConfig(1).latency.step_overhead_s + latency.DecodeSeconds(101)));
}

}  // namespace
}  // namespace kvbench::sim
