#include "tests/unit/controller/report/synthetic_job.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace kvbench::testing {
namespace {

constexpr int kSeriesSamples = 6;
constexpr double kSamplePeriodS = 15;

void AddSeries(v1::ScenarioResult* result, const std::string& name, double base) {
  v1::TimeSeries* series = result->add_series();
  series->set_name(name);
  for (int i = 0; i < kSeriesSamples; ++i) {
    series->add_t_s(i * kSamplePeriodS);
    series->add_value(base + 0.05 * i);
  }
}

v1::ScenarioResult Result(v1::Tier tier, int concurrency) {
  const double scale = tier * 0.1 + concurrency * 0.01;
  v1::ScenarioResult result;
  result.set_tier(tier);
  result.set_concurrency(concurrency);
  v1::LatencyMetrics* latency = result.mutable_latency();
  latency->set_ttft_p50_s(0.1 + scale);
  latency->set_ttft_p95_s(0.3 + scale);
  latency->set_requests_per_s(4 + concurrency * 0.5 + tier);
  latency->set_output_tokens_per_s(250 + concurrency * 20 + tier * 10);
  for (int round = 1; round <= 3; ++round) {
    v1::RoundLatency* by_round = latency->add_ttft_by_round();
    by_round->set_round(round);
    by_round->set_count(16);
    by_round->set_ttft_p50_s(0.1 * round + scale);
  }
  v1::SessionCounts* sessions = result.mutable_sessions();
  sessions->set_requested(16);
  sessions->set_achieved(16);
  sessions->set_dataset_ceiling(50);
  sessions->set_total(16);
  sessions->set_complete(16);
  AddSeries(&result, "local_hit_rate", 0.3);
  if (tier != v1::GPU) AddSeries(&result, "external_hit_rate", 0.1);
  AddSeries(&result, "kv_cache_usage", 0.4);
  result.mutable_engine()->set_kv_cache_usage_mean(0.405);
  result.mutable_engine()->set_kv_cache_usage_max(0.875);
  result.mutable_engine()->set_prefix_cache_query_tokens(20000);
  result.mutable_engine()->set_prefix_cache_hit_tokens(12000);
  latency->set_prompt_tokens_total(20000);
  if (tier != v1::GPU) {
    result.mutable_engine()->set_external_query_tokens(8000);
    result.mutable_engine()->set_external_hit_tokens(3000);
    result.mutable_lmcache()->set_hit_rate(0.42);
    result.mutable_lmcache()->set_evicted_chunks(7);
    result.mutable_lmcache()->set_l2_load_gb_per_s(1.5);
  }
  if (tier == v1::NVME) {
    result.mutable_disk()->set_device("nvme0n1");
    result.mutable_disk()->set_read_gb_per_s(2.25);
    result.mutable_disk()->set_utilization_pct(35);
  }
  return result;
}

std::string TierSlug(v1::Tier tier) {
  return absl::StrReplaceAll(absl::AsciiStrToLower(v1::Tier_Name(tier)), {{"_", "-"}});
}

}  // namespace

v1::Job SyntheticJob() {
  v1::Job job;
  job.set_job_id(kSyntheticJobId);
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  job.set_submit_unix_ms(1'800'000'000'000);
  v1::JobSpec* spec = job.mutable_spec();
  spec->set_name("demo <sim> & co");
  spec->set_model("meta-llama/Llama-3.1-8B-Instruct");
  spec->set_build(v1::NVIDIA);
  spec->set_engine(v1::SIM);
  for (v1::Tier tier : {v1::GPU, v1::CPU_RAM, v1::NVME}) spec->add_tiers(tier);
  spec->set_replicas(2);
  spec->set_tensor_parallel_size(1);
  spec->mutable_dataset()->set_code("tau2-bench-v1");
  spec->set_num_rounds(3);
  spec->add_concurrency(2);
  spec->add_concurrency(8);
  spec->set_osl(64);
  spec->set_sessions(16);
  (*spec->mutable_labels())["team"] = "serving";
  (*spec->mutable_labels())["note"] = "<b>bold</b> \"quoted\"";
  int index = 0;
  for (int concurrency : {2, 8}) {
    for (v1::Tier tier : {v1::GPU, v1::CPU_RAM, v1::NVME}) {
      v1::ScenarioStatus* status = job.add_scenarios();
      v1::Scenario* scenario = status->mutable_scenario();
      scenario->set_scenario_id(absl::StrCat("0", index++, "-", TierSlug(tier), "-c", concurrency));
      scenario->set_job_id(kSyntheticJobId);
      scenario->set_tier(tier);
      scenario->set_concurrency(concurrency);
      scenario->set_sessions(16);
      scenario->set_comparison_group(absl::StrCat("c", concurrency));
      status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
      *status->mutable_result() = Result(tier, concurrency);
      status->mutable_result()->set_scenario_id(scenario->scenario_id());
    }
  }
  return job;
}

std::vector<v1::Validity> SyntheticValidity() {
  v1::Validity valid;
  valid.set_comparison_group("c2");
  valid.set_verdict(v1::VERDICT_VALID);
  v1::Validity invalid;
  invalid.set_comparison_group("c8");
  invalid.set_verdict(v1::VERDICT_INVALID);
  v1::ValidityReason* reason = invalid.add_reasons();
  reason->set_code("achieved_sessions_differ");
  reason->set_message("achieved sessions differ: GPU 16, NVME <12>");
  return {valid, invalid};
}

}  // namespace kvbench::testing
