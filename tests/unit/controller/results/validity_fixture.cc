#include "tests/unit/controller/results/validity_fixture.h"

#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/results/validity.h"

namespace kvbench::results::testing {
namespace {

std::string Slug(v1::Tier tier) {
  switch (tier) {
    case v1::GPU:
      return "gpu";
    case v1::CPU_RAM:
      return "cpu-ram";
    case v1::NVME:
      return "nvme";
    default:
      return "unknown";
  }
}

}  // namespace

v1::ScenarioResult CleanResult(const v1::Scenario& scenario) {
  v1::ScenarioResult result;
  result.set_scenario_id(scenario.scenario_id());
  result.set_tier(scenario.tier());
  result.set_concurrency(scenario.concurrency());
  v1::SessionCounts* sessions = result.mutable_sessions();
  sessions->set_requested(scenario.sessions());
  sessions->set_achieved(scenario.sessions());
  sessions->set_dataset_ceiling(100);
  sessions->set_total(scenario.sessions());
  sessions->set_complete(scenario.sessions());
  v1::LatencyMetrics* latency = result.mutable_latency();
  latency->set_prompt_tokens_total(kPromptTokens);
  latency->set_output_tokens_total(kOutputTokens);
  latency->set_reuse_any_user_pct(kReuseAnyUserPct);
  latency->set_reuse_same_user_pct(kReuseAnyUserPct - 5);
  v1::EngineMetrics* engine = result.mutable_engine();
  engine->set_num_gpu_blocks(kGpuBlocks);
  engine->set_block_size(kBlockSize);
  engine->set_local_hit_rate(0.5);
  engine->set_num_preemptions(0);
  engine->set_kv_cache_usage_max(0.6);
  if (scenario.tier() == v1::GPU) {
    latency->set_cached_tokens_total(kGpuCachedTokens);
  } else {
    engine->set_external_hit_rate(0.4);
    engine->set_external_hit_tokens(kExternalHitTokens);
    result.mutable_lmcache()->set_chunks_loaded(kExternalHitTokens / 256);
    latency->set_cached_tokens_total(kGpuCachedTokens + kExternalHitTokens);
  }
  result.set_peak_concurrent_tokens(120000);
  return result;
}

v1::Job CleanJob(const std::vector<v1::Tier>& tiers, const std::vector<int>& concurrencies) {
  v1::Job job;
  job.set_job_id("job-1");
  v1::JobSpec* spec = job.mutable_spec();
  spec->set_model("meta-llama/Llama-3.1-8B-Instruct");
  spec->set_build(v1::NVIDIA);
  spec->set_engine(v1::SIM);
  spec->set_replicas(kReplicas);
  spec->set_tensor_parallel_size(1);
  spec->mutable_dataset()->set_code("sharegpt");
  spec->set_num_rounds(5);
  spec->set_isl(0);
  spec->set_osl(64);
  for (v1::Tier tier : tiers) spec->add_tiers(tier);
  for (int c : concurrencies) spec->add_concurrency(c);
  int index = 0;
  for (int c : concurrencies) {
    for (v1::Tier tier : tiers) {
      v1::ScenarioStatus* status = job.add_scenarios();
      v1::Scenario* scenario = status->mutable_scenario();
      scenario->set_scenario_id(absl::StrFormat("%02d-%s-c%d", index, Slug(tier), c));
      scenario->set_job_id(job.job_id());
      scenario->set_index(index++);
      scenario->set_tier(tier);
      scenario->set_concurrency(c);
      scenario->set_sessions(c);
      scenario->set_comparison_group(absl::StrCat("c", c));
      status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
      *status->mutable_result() = CleanResult(*scenario);
    }
  }
  return job;
}

std::vector<ScenarioRun> CleanPair() { return RunsOfJob(CleanJob({v1::GPU, v1::CPU_RAM}, {8})); }

std::vector<std::string> Codes(const v1::Validity& validity) {
  std::vector<std::string> codes;
  for (const v1::ValidityReason& reason : validity.reasons()) codes.push_back(reason.code());
  return codes;
}

std::vector<std::string> NoteCodes(const v1::Validity& validity) {
  std::vector<std::string> codes;
  for (const v1::ValidityReason& note : validity.notes()) codes.push_back(note.code());
  return codes;
}

v1::Validity OnlyVerdict(const std::vector<ScenarioRun>& runs) {
  std::vector<v1::Validity> verdicts = ComputeValidity(runs);
  REQUIRE(verdicts.size() == 1);
  return verdicts.front();
}

}  // namespace kvbench::results::testing
