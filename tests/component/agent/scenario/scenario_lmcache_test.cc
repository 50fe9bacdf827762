// LMCache's contracts through real simulators: the older HTTP layout,
// a cache server whose metrics cannot be scraped, counters absent until their first increment,
// dropped metric events and the NVME disk check.

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/scenario/result_warnings.h"
#include "agent/tiers/tier_renderer.h"
#include "tests/component/agent/scenario/scenario_harness.h"

namespace kvbench::testing {
namespace {

using agent::ScenarioDriver;

// The shipped profiles, sim-lmcache with `extra` appended to its flags.
std::vector<v1::Profile> ProfilesWithCacheFlags(const std::vector<std::string>& extra) {
  auto shipped = agent::tiers::ProfileSet::LoadDir(KV_PROFILES_DIR);
  REQUIRE(shipped.ok());
  std::vector<v1::Profile> profiles;
  for (const std::string& name : shipped->names()) {
    v1::Profile profile = **shipped->Find(name);
    if (name == agent::tiers::kSimLmcacheProfile) {
      for (const std::string& flag : extra) profile.add_extra_args(flag);
      profile.set_ready_timeout_s(20);  // a layout the agent cannot find fails in bounded time
    }
    profiles.push_back(profile);
  }
  return profiles;
}

absl::StatusOr<v1::ScenarioResult> RunTier(ScenarioHarness& harness, v1::Tier tier,
                                           v1::Scenario* scenario) {
  *scenario = ScenarioHarness::MakeScenario(tier, 4, 8);
  v1::JobSpec job = ScenarioHarness::SimJob(1, 0.02);
  job.mutable_sampling()->set_period_s(2);
  job.mutable_sampling()->set_rate_window_s(40);
  ScenarioDriver executor(harness.Environment(*scenario), job, *scenario, harness.Sink());
  return executor.Run();
}

std::vector<std::string> WarningCodes(const v1::ScenarioResult& result) {
  std::vector<std::string> codes;
  for (const v1::ResultWarning& warning : result.warnings()) codes.push_back(warning.code());
  return codes;
}

// The cache server's value of `key` in the "after" sample of samples.jsonl (its total since
// start: the server is fresh per scenario).
double AfterValue(const ScenarioHarness& harness, const v1::Scenario& scenario,
                  const std::string& key) {
  double value = -1;
  std::ifstream in(harness.ScenarioDir(scenario) + "/samples.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json sample = nlohmann::json::parse(line);
    if (sample.value("kind", "") != "after" || sample.value("source", "") != "cache-server") {
      continue;
    }
    value = sample["values"].value(key, -1.0);
  }
  return value;
}

TEST_CASE("The older LMCache HTTP layout is found: /api/healthcheck, /metrics on its own port",
          "[Scenario]") {
  ScenarioHarness harness(ProfilesWithCacheFlags(
      {"--sim-healthcheck-path=/api/healthcheck", "--sim-metrics-on-prometheus-port"}));
  v1::Scenario scenario;
  absl::StatusOr<v1::ScenarioResult> result = RunTier(harness, v1::CPU_RAM, &scenario);
  INFO(result.status());
  REQUIRE(result.ok());
  CHECK(WarningCodes(*result).empty());
  REQUIRE(result->has_lmcache());
  CHECK(result->lmcache().lookup_requested_tokens() > 0);
  CHECK(result->lmcache().has_hit_rate());
}

TEST_CASE("A cache server whose metrics cannot be scraped is a warning, never silent nulls",
          "[Scenario]") {
  // Upstream's push mode: with --otlp-endpoint there is no local /metrics at all.
  ScenarioHarness harness(ProfilesWithCacheFlags({"--otlp-endpoint=http://127.0.0.1:1"}));
  v1::Scenario scenario;
  absl::StatusOr<v1::ScenarioResult> result = RunTier(harness, v1::CPU_RAM, &scenario);
  INFO(result.status());
  REQUIRE(result.ok());
  CHECK(WarningCodes(*result) == std::vector<std::string>{agent::kCacheServerMetricsUnavailable});
  CHECK_THAT(result->warnings(0).message(), Catch::Contains("/metrics"));
  CHECK_FALSE(result->lmcache().has_lookup_requested_tokens());
  std::ifstream in(harness.ScenarioDir(scenario) + "/result.json");
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(json, Catch::Contains(agent::kCacheServerMetricsUnavailable));
}

TEST_CASE("LMCache counters absent before their first increment count from 0", "[Scenario]") {
  ScenarioHarness harness;
  v1::Scenario scenario;
  absl::StatusOr<v1::ScenarioResult> result = RunTier(harness, v1::CPU_RAM, &scenario);
  INFO(result.status());
  REQUIRE(result.ok());
  REQUIRE(result->has_lmcache());
  // The server started with the scenario: the whole run's increase is the final total, warm-up
  // and first period included.
  const double requested =
      AfterValue(harness, scenario, "lmcache_mp_lookup_requested_tokens_total");
  REQUIRE(requested > 0);
  CHECK(result->lmcache().lookup_requested_tokens() == static_cast<int64_t>(requested));
  const double loaded = AfterValue(harness, scenario, "lmcache_mp_num_chunks_loaded_total");
  if (loaded > 0) CHECK(result->lmcache().chunks_loaded() == static_cast<int64_t>(loaded));
  CHECK(result->lmcache().dropped_events() == 0);
}

TEST_CASE("Dropped LMCache metric events are recorded", "[Scenario]") {
  ScenarioHarness harness(ProfilesWithCacheFlags({"--sim-event-drop-rate=0.3"}));
  v1::Scenario scenario;
  absl::StatusOr<v1::ScenarioResult> result = RunTier(harness, v1::CPU_RAM, &scenario);
  INFO(result.status());
  REQUIRE(result.ok());
  CHECK(result->lmcache().dropped_events() > 0);
}

TEST_CASE("NVME: L2 load bytes are compared with the device's reads", "[Scenario]") {
  ScenarioHarness harness;
  v1::Scenario scenario;
  absl::StatusOr<v1::ScenarioResult> result = RunTier(harness, v1::NVME, &scenario);
  INFO(result.status());
  REQUIRE(result.ok());
  const v1::LmcacheMetrics& lmcache = result->lmcache();
  REQUIRE(lmcache.has_l2_store_bytes());
  CHECK(lmcache.l2_store_bytes() > 0);
  if (!lmcache.has_l2_load_bytes() || lmcache.l2_load_bytes() == 0 || !result->has_disk()) {
    SUCCEED("no L2 load, or no block device under the pool: nothing to compare");
    return;
  }
  // The chunk files were just written: their reads come from the page cache, unless other
  // processes read the same device meanwhile. What a user checks: the warning says which.
  const double expected =
      static_cast<double>(lmcache.l2_load_bytes()) * agent::tiers::kSimL2BytesScale;
  const bool from_disk =
      static_cast<double>(result->disk().read_bytes_total()) >= agent::kMinDiskReadShare * expected;
  INFO("disk read " << result->disk().read_bytes_total() << " of " << expected);
  const std::vector<std::string> codes = WarningCodes(*result);
  CHECK((std::find(codes.begin(), codes.end(), agent::kNvmeReadsNotFromDisk) != codes.end()) ==
        !from_disk);
}

}  // namespace
}  // namespace kvbench::testing
