#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/sim/engine/engine_config.h"
#include "agent/sim/engine/engine_core.h"
#include "agent/sim/engine/engine_types.h"
#include "tests/unit/agent/sim/engine/fake_engine_observer.h"
#include "tests/unit/agent/sim/engine/fake_external_kv_cache.h"

namespace kvbench::sim::testing {

// An 8B engine with `num_gpu_blocks` blocks of 16 tokens and a large token budget.
EngineConfig TestConfig(int64_t num_gpu_blocks);
// `n` distinct, deterministic token ids; different `seed`s give different prompts.
std::vector<uint32_t> TestPrompt(size_t n, uint32_t seed = 1);

// An EngineCore on a virtual clock with a recording observer (and optionally a fake external
// cache), collecting every output per request id.
class CoreHarness {
 public:
  explicit CoreHarness(const EngineConfig& config,
                       std::unique_ptr<FakeExternalKvCache> external = nullptr);

  void Submit(const std::string& id, std::vector<uint32_t> prompt, int max_tokens,
              bool ignore_eos = true);
  void SubmitAt(double arrival_s, const std::string& id, std::vector<uint32_t> prompt,
                int max_tokens, bool ignore_eos = true);
  // One step from max(now, the next arrival); delivers its outputs. Returns its duration.
  double Step();
  // Steps until the engine is idle.
  void RunUntilIdle();

  double now_s() const { return now_s_; }
  void set_now_s(double now_s) { now_s_ = now_s; }
  const std::vector<RequestOutput>& outputs(const std::string& id) const;
  const RequestOutput& last(const std::string& id) const { return outputs(id).back(); }
  double Ttft(const std::string& id) const;
  const std::vector<double>& step_durations() const { return step_durations_; }

  EngineCore& core() { return *core_; }
  FakeEngineObserver& observer() { return observer_; }
  FakeExternalKvCache* external() { return external_.get(); }

 private:
  FakeEngineObserver observer_;
  std::unique_ptr<FakeExternalKvCache> external_;
  std::unique_ptr<EngineCore> core_;
  double now_s_ = 0;
  std::map<std::string, std::vector<RequestOutput>> outputs_;
  std::vector<double> step_durations_;
};

}  // namespace kvbench::sim::testing
