// vLLM contracts the agent must keep, through real scenarios on loopback: every tier of a
// sliding-window model gets the same GPU KV capacity, and an AMD replica never inherits a
// CUDA_VISIBLE_DEVICES that vLLM's ROCm platform would refuse.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "controller/results/validity.h"
#include "tests/component/agent/scenario/scenario_harness.h"
#include "tests/support/scoped_env.h"

namespace kvbench::testing {
namespace {

using agent::ScenarioDriver;

// Runs `tier` of `job` at concurrency 2 (2 sessions) as a comparison sees it afterwards.
results::ScenarioRun RunTier(const v1::JobSpec& job, v1::Tier tier) {
  ScenarioHarness harness;
  v1::Scenario scenario = ScenarioHarness::MakeScenario(tier, 2, 2);
  ScenarioDriver executor(harness.Environment(scenario), job, scenario, harness.Sink());
  absl::StatusOr<v1::ScenarioResult> result = executor.Run();
  INFO(v1::Tier_Name(tier) << ": " << result.status());
  REQUIRE(result.ok());
  results::ScenarioRun run;
  run.spec = job;
  run.scenario = scenario;
  run.state = v1::SCENARIO_STATE_SUCCEEDED;
  run.result = *result;
  return run;
}

TEST_CASE("A sliding-window model gets the same GPU KV capacity in the GPU and offload tiers",
          "[Scenario][Contract]") {
  // gpt-oss-20b with the KV blocks vLLM derives from memory (no override): with the hybrid KV
  // cache manager left on in the GPU tier only, that tier would get twice the blocks.
  v1::JobSpec job = ScenarioHarness::SimJob(1, 0.02);
  job.set_model("openai/gpt-oss-20b");
  job.mutable_engine_overrides()->clear_num_gpu_blocks();
  std::vector<results::ScenarioRun> runs = {RunTier(job, v1::GPU), RunTier(job, v1::CPU_RAM)};
  const v1::EngineMetrics& gpu = runs[0].result->engine();
  const v1::EngineMetrics& cpu = runs[1].result->engine();
  REQUIRE(gpu.has_num_gpu_blocks());
  REQUIRE(cpu.has_num_gpu_blocks());
  CHECK(gpu.num_gpu_blocks() == cpu.num_gpu_blocks());
  CHECK(gpu.block_size() == cpu.block_size());

  const std::vector<v1::Validity> verdicts = results::ComputeValidity(runs);
  REQUIRE(verdicts.size() == 1);
  for (const v1::ValidityReason& reason : verdicts[0].reasons()) {
    INFO(reason.message());
    CHECK(reason.code() != results::kGpuKvCapacityDiffers);
  }
}

// The shipped profiles with vllm-amd running kvsim-vllm as vLLM's ROCm platform would start.
std::vector<v1::Profile> AmdProfilesOnTheSimulator() {
  absl::StatusOr<agent::tiers::ProfileSet> shipped =
      agent::tiers::ProfileSet::LoadDir(KV_PROFILES_DIR);
  REQUIRE(shipped.ok());
  std::vector<v1::Profile> profiles;
  for (const std::string& name : shipped->names()) {
    v1::Profile profile = **shipped->Find(name);
    if (name == "vllm-amd") {
      profile.clear_command();
      profile.add_command("kvsim-vllm");
      profile.add_command("serve");
      for (const char* arg : {"--sim-platform=rocm", "--sim-load-seconds=0",
                              "--sim-time-scale=0.02", "--num-gpu-blocks-override=2048"}) {
        profile.add_extra_args(arg);
      }
    }
    profiles.push_back(profile);
  }
  return profiles;
}

TEST_CASE("An AMD replica does not inherit the agent's CUDA_VISIBLE_DEVICES",
          "[Scenario][Contract]") {
  ScopedEnv inherited("CUDA_VISIBLE_DEVICES", "0");  // the agent's children inherit it
  ScenarioHarness harness(AmdProfilesOnTheSimulator());
  v1::JobSpec job = ScenarioHarness::SimJob(1, 0.02);
  job.set_engine(v1::VLLM);
  job.set_build(v1::AMD);
  job.clear_engine_overrides();
  v1::Scenario scenario = ScenarioHarness::MakeScenario(v1::GPU, 2, 2);
  agent::ScenarioEnvironment env = harness.Environment(scenario);
  env.gpus = {2, 3};  // HIP_VISIBLE_DEVICES=2 for the one replica (tensor parallel 1)
  ScenarioDriver executor(env, job, scenario, harness.Sink());
  absl::StatusOr<v1::ScenarioResult> result = executor.Run();
  INFO(result.status());
  INFO(harness.ReadLog(scenario, "replica-0"));
  REQUIRE(result.ok());
  CHECK(result->sessions().complete() == 2);
  CHECK(result->process_failures().empty());
}

}  // namespace
}  // namespace kvbench::testing
