// What the sampler puts in a scenario's result, through real simulators: every tier's
// engine metrics, LMCache's only where there is a cache server, null (absent) never zero.

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "common/json/proto_json.h"
#include "tests/component/agent/scenario/scenario_harness.h"

namespace kvbench::testing {
namespace {

using agent::ScenarioDriver;

absl::StatusOr<v1::ScenarioResult> RunSampledTier(ScenarioHarness& harness, v1::Tier tier,
                                                  v1::Scenario* scenario) {
  *scenario = ScenarioHarness::MakeScenario(tier, 4, 8);
  v1::JobSpec job = ScenarioHarness::SimJob(1, 0.02);
  // 1 s and 40 s simulated at scale 0.02: a scrape every 20 ms real, a 0.8 s window. The GPU
  // tier's replay lasts a few tens of ms here, so a longer period can fall between its scrapes.
  job.mutable_sampling()->set_period_s(1);
  job.mutable_sampling()->set_rate_window_s(40);
  ScenarioDriver executor(harness.Environment(*scenario), job, *scenario, harness.Sink());
  return executor.Run();
}

std::set<std::string> SampleKinds(const ScenarioHarness& harness, const v1::Scenario& scenario) {
  std::set<std::string> kinds;
  std::ifstream in(harness.ScenarioDir(scenario) + "/samples.jsonl");
  for (std::string line; std::getline(in, line);) {
    kinds.insert(nlohmann::json::parse(line).value("kind", ""));
  }
  return kinds;
}

TEST_CASE("Each tier's result carries its sampled metrics, and only its own", "[Scenario]") {
  ScenarioHarness harness;
  const v1::Tier tier = GENERATE(v1::GPU, v1::CPU_RAM, v1::NVME);
  INFO(v1::Tier_Name(tier));
  v1::Scenario scenario;
  absl::StatusOr<v1::ScenarioResult> result = RunSampledTier(harness, tier, &scenario);
  INFO(result.status());
  REQUIRE(result.ok());
  const v1::EngineMetrics& engine = result->engine();
  CHECK(engine.has_local_hit_rate());
  CHECK(engine.local_hit_rate() >= 0);
  CHECK(engine.local_hit_rate() <= 1);
  CHECK(engine.has_mean_prefill_time_s());
  CHECK(engine.mean_prefill_time_s() > 0);
  CHECK(engine.has_mean_queue_time_s());
  CHECK(engine.has_kv_cache_usage_mean());
  CHECK(engine.num_gpu_blocks() == 2048);
  CHECK(engine.block_size() == 16);
  CHECK(SampleKinds(harness, scenario) == std::set<std::string>{"before", "periodic", "after"});
  // Sample events went out as the scrapes happened.
  int samples = 0;
  for (const v1::Event& event : harness.events()) samples += event.has_sample() ? 1 : 0;
  CHECK(samples >= 3);
  if (tier == v1::GPU) {
    CHECK_FALSE(engine.has_external_hit_rate());  // no connector: absent, not zero
    CHECK_FALSE(result->has_lmcache());
  } else {
    CHECK(engine.has_external_hit_rate());
    REQUIRE(result->has_lmcache());
    const v1::LmcacheMetrics& lmcache = result->lmcache();
    CHECK(lmcache.lookup_requested_tokens() > 0);
    CHECK(lmcache.has_hit_rate());
    CHECK(lmcache.has_l1_usage_ratio_mean());
    CHECK(lmcache.has_l0_l1_store_gb_per_s());
    CHECK(lmcache.has_eviction_loop_ticks());
  }
  // Host telemetry on the same ticks; this machine has no NVIDIA driver: unavailable, no error.
  const v1::HostTelemetry& host = result->telemetry();
  CHECK(host.has_cpu_utilization_pct_mean());
  CHECK(host.process_cpu_pct_mean().count("replica-0") == 1);
  CHECK(host.gpu_available() == (host.gpus_size() > 0));
  if (tier == v1::NVME) {
    // The L2 pool's block device, when the filesystem has one (overlay/tmpfs have none).
    if (result->has_disk()) CHECK_FALSE(result->disk().device().empty());
  } else {
    CHECK_FALSE(result->has_disk());
  }
  bool local_series = false;
  for (const v1::TimeSeries& series : result->series()) {
    local_series = local_series || series.name() == "local_hit_rate";
  }
  CHECK(local_series);
  // result.json dates its series: t_s = 0 (the warm-up gate) lies within the scenario's run,
  // and the file a kvctl run folder keeps has all three times, as the result sent has.
  std::ifstream result_file(harness.ScenarioDir(scenario) + "/result.json");
  std::stringstream result_text;
  result_text << result_file.rdbuf();
  v1::ScenarioResult written;
  REQUIRE(ParseJsonToProto(result_text.str(), &written).empty());
  for (const v1::ScenarioResult* dated : {&*result, &written}) {
    CHECK(dated->start_unix_ms() > 0);
    CHECK(dated->replay_start_unix_ms() >= dated->start_unix_ms());
    CHECK(dated->end_unix_ms() >= dated->replay_start_unix_ms());
  }
  CHECK(written.start_unix_ms() == result->start_unix_ms());
  CHECK(written.replay_start_unix_ms() == result->replay_start_unix_ms());
}

TEST_CASE("Without vLLM's histograms, prefill and queue times are null, not zero", "[Scenario]") {
  std::vector<v1::Profile> profiles;
  auto shipped = agent::tiers::ProfileSet::LoadDir(KV_PROFILES_DIR);
  REQUIRE(shipped.ok());
  for (const std::string& name : shipped->names()) {
    v1::Profile profile = **shipped->Find(name);
    if (name == "sim-vllm") profile.add_extra_args("--sim-omit-histograms");
    profiles.push_back(profile);
  }
  ScenarioHarness harness(profiles);
  v1::Scenario scenario;
  absl::StatusOr<v1::ScenarioResult> result = RunSampledTier(harness, v1::GPU, &scenario);
  INFO(result.status());
  REQUIRE(result.ok());
  CHECK_FALSE(result->engine().has_mean_prefill_time_s());
  CHECK_FALSE(result->engine().has_mean_queue_time_s());
  CHECK(result->engine().has_local_hit_rate());  // the counters are still there
}

}  // namespace
}  // namespace kvbench::testing
