#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "agent/sim/engine/sim_engine.h"
#include "tests/support/wait_for.h"
#include "tests/unit/agent/sim/engine/core_harness.h"
#include "tests/unit/agent/sim/engine/fake_engine_observer.h"

namespace kvbench::sim {
namespace {

using kvbench::testing::WaitFor;
using testing::FakeEngineObserver;
using testing::TestConfig;
using testing::TestPrompt;

// Collects the outputs the engine thread delivers.
class OutputSink {
 public:
  std::function<void(const RequestOutput&)> Callback() {
    return [this](const RequestOutput& output) {
      std::lock_guard<std::mutex> lock(mu_);
      outputs_.push_back(output);
    };
  }
  std::vector<RequestOutput> outputs() const {
    std::lock_guard<std::mutex> lock(mu_);
    return outputs_;
  }
  bool finished() const {
    std::lock_guard<std::mutex> lock(mu_);
    return !outputs_.empty() && outputs_.back().finished;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return outputs_.size();
  }

 private:
  mutable std::mutex mu_;
  std::vector<RequestOutput> outputs_;
};

EngineRequest Request(const std::string& id, int max_tokens, OutputSink* sink) {
  EngineRequest request;
  request.id = id;
  request.prompt = TestPrompt(500);
  request.max_tokens = max_tokens;
  request.ignore_eos = true;
  request.on_output = sink->Callback();
  return request;
}

TEST_CASE("SimEngine delivers outputs on its thread and Stop aborts the rest", "[sim_engine]") {
  EngineConfig config = TestConfig(100000);
  config.time_scale = 0.001;  // 1000x faster than real time
  FakeEngineObserver observer;
  auto created = SimEngine::Create(config, nullptr, &observer);
  REQUIRE(created.ok());
  SimEngine& engine = **created;
  engine.Start();

  OutputSink short_sink;
  engine.Submit(Request("short", 5, &short_sink));
  REQUIRE(WaitFor([&] { return short_sink.finished(); }, absl::Seconds(30)));
  const auto outputs = short_sink.outputs();
  REQUIRE(outputs.size() == 5);
  CHECK(outputs.front().first);
  CHECK(outputs.back().finish_reason == FinishReason::kLength);
  const RequestTimings& t = outputs.back().timings;
  CHECK(t.arrival_s >= 0);
  CHECK(t.scheduled_s >= t.arrival_s);
  CHECK(t.first_token_s > t.scheduled_s);
  CHECK(t.finished_s > t.first_token_s);
  CHECK(engine.NowSimSeconds() >= t.finished_s);

  OutputSink aborted_sink;
  engine.Submit(Request("aborted", 100000, &aborted_sink));
  OutputSink stopped_sink;
  engine.Submit(Request("stopped", 100000, &stopped_sink));
  REQUIRE(WaitFor([&] { return aborted_sink.size() >= 2 && stopped_sink.size() >= 2; },
                  absl::Seconds(30)));
  engine.Abort("aborted");
  REQUIRE(WaitFor([&] { return aborted_sink.finished(); }, absl::Seconds(30)));
  CHECK(aborted_sink.outputs().back().finish_reason == FinishReason::kAbort);

  engine.Stop();
  REQUIRE(stopped_sink.finished());
  CHECK(stopped_sink.outputs().back().finish_reason == FinishReason::kAbort);
  CHECK(stopped_sink.outputs().back().output_tokens < 100000);
  engine.Stop();  // idempotent

  OutputSink late_sink;
  engine.Submit(Request("late", 5, &late_sink));
  REQUIRE(late_sink.finished());
  CHECK(late_sink.outputs().back().error == "the engine is stopped");
  CHECK(observer.finished().size() == 3);
}

TEST_CASE("SimEngine can be stopped from an output callback", "[sim_engine]") {
  EngineConfig config = TestConfig(100000);
  config.time_scale = 0.001;
  auto created = SimEngine::Create(config, nullptr, nullptr);
  REQUIRE(created.ok());
  SimEngine* engine = created->get();
  engine->Start();
  OutputSink sink;
  EngineRequest request = Request("self-stop", 100000, &sink);
  auto record = sink.Callback();
  request.on_output = [engine, record](const RequestOutput& output) {
    record(output);
    if (output.first) engine->Stop();  // must not join its own thread
  };
  engine->Submit(std::move(request));
  REQUIRE(WaitFor([&] { return sink.finished(); }, absl::Seconds(30)));
  CHECK(sink.outputs().back().finish_reason == FinishReason::kAbort);
  created->reset();  // joins the thread
}

TEST_CASE("SimEngine Create validates the config and sizes the cache from memory", "[sim_engine]") {
  EngineConfig config = TestConfig(0);
  auto engine = SimEngine::Create(config, nullptr, nullptr);
  REQUIRE(engine.ok());
  CHECK((*engine)->config().num_gpu_blocks == 52881);  // one H200 at 0.9 utilization

  struct Case {
    const char* name;
    void (*mutate)(EngineConfig*);
  };
  const Case cases[] = {
      {"block size", [](EngineConfig* c) { c->block_size = 0; }},
      {"max_num_seqs", [](EngineConfig* c) { c->max_num_seqs = 0; }},
      {"budget", [](EngineConfig* c) { c->max_num_batched_tokens = -1; }},
      {"time scale", [](EngineConfig* c) { c->time_scale = 0; }},
      {"tensor parallel", [](EngineConfig* c) { c->tensor_parallel_size = 0; }},
      {"model", [](EngineConfig* c) { c->model = ModelSpec{}; }},
      {"bandwidth", [](EngineConfig* c) { c->latency.hbm_bytes_per_s = 0; }},
      {"no room for KV", [](EngineConfig* c) { c->model = *FindModel("Llama-3.1-70B"); }},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    EngineConfig bad = TestConfig(0);
    c.mutate(&bad);
    auto result = SimEngine::Create(bad, nullptr, nullptr);
    REQUIRE_FALSE(result.ok());
    CHECK(result.status().code() == absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace kvbench::sim
