#include "tests/unit/agent/sim/engine/core_harness.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agent/sim/engine/model_catalog.h"
#include "common/log/logging.h"

namespace kvbench::sim::testing {

EngineConfig TestConfig(int64_t num_gpu_blocks) {
  EngineConfig config;
  config.model = *FindModel("Llama-3.1-8B-Instruct");
  config.block_size = 16;
  config.num_gpu_blocks = num_gpu_blocks;
  config.max_num_seqs = 256;
  config.max_num_batched_tokens = 65536;
  config.seed = 7;
  return config;
}

std::vector<uint32_t> TestPrompt(size_t n, uint32_t seed) {
  std::vector<uint32_t> tokens(n);
  for (size_t i = 0; i < n; ++i) {
    tokens[i] = static_cast<uint32_t>((seed * 1000003u + i * 7919u) % 128256u);
  }
  return tokens;
}

CoreHarness::CoreHarness(const EngineConfig& config, std::unique_ptr<FakeExternalKvCache> external)
    : external_(std::move(external)),
      core_(std::make_unique<EngineCore>(config, external_.get(), &observer_)) {}

void CoreHarness::Submit(const std::string& id, std::vector<uint32_t> prompt, int max_tokens,
                         bool ignore_eos) {
  SubmitAt(now_s_, id, std::move(prompt), max_tokens, ignore_eos);
}

void CoreHarness::SubmitAt(double arrival_s, const std::string& id, std::vector<uint32_t> prompt,
                           int max_tokens, bool ignore_eos) {
  EngineRequest request;
  request.id = id;
  request.prompt = std::move(prompt);
  request.max_tokens = max_tokens;
  request.ignore_eos = ignore_eos;
  request.on_output = [this, id](const RequestOutput& output) { outputs_[id].push_back(output); };
  if (auto rejected = core_->Submit(std::move(request), arrival_s)) rejected->Deliver();
}

double CoreHarness::Step() {
  const double start = core_->EarliestStart(now_s_);
  const StepResult step = core_->Step(start);
  now_s_ = start + step.duration_s;
  step_durations_.push_back(step.duration_s);
  for (const PendingOutput& output : step.outputs) output.Deliver();
  return step.duration_s;
}

void CoreHarness::RunUntilIdle() {
  int guard = 0;
  while (core_->HasWork()) {
    Step();
    KV_CHECK(++guard < 10'000'000) << "the engine never went idle";
  }
}

const std::vector<RequestOutput>& CoreHarness::outputs(const std::string& id) const {
  static const std::vector<RequestOutput>* const kNone = new std::vector<RequestOutput>();
  const auto it = outputs_.find(id);
  return it == outputs_.end() ? *kNone : it->second;
}

double CoreHarness::Ttft(const std::string& id) const {
  const RequestOutput& first = outputs(id).front();
  return first.timings.first_token_s - first.timings.arrival_s;
}

}  // namespace kvbench::sim::testing
