#include "tests/unit/agent/tiers/tiers_test_fixtures.h"

#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kvbench::agent::tiers::testing {

v1::JobSpec TestJob(v1::Engine engine, v1::Vendor build, int replicas) {
  v1::JobSpec job;
  job.set_name("tiers-test");
  job.set_model(kModel);
  job.set_engine(engine);
  job.set_build(build);
  job.set_replicas(replicas);
  job.set_tensor_parallel_size(2);
  job.set_cpu_pool_gb(8);
  job.set_nvme_pool_gb(64);
  job.set_seed(7);
  v1::EngineOverrides* overrides = job.mutable_engine_overrides();
  overrides->set_num_gpu_blocks(4096);
  overrides->set_gpu_memory_utilization(0.9);
  overrides->set_max_model_len(32768);
  overrides->set_sim_time_scale(0.01);
  return job;
}

v1::Scenario TestScenario(v1::Tier tier) {
  v1::Scenario scenario;
  scenario.set_scenario_id(absl::StrCat("00-", v1::Tier_Name(tier), "-c4"));
  scenario.set_job_id("job-1");
  scenario.set_tier(tier);
  scenario.set_concurrency(4);
  scenario.set_sessions(4);
  return scenario;
}

ScenarioWiring TestWiring(int replicas) {
  ScenarioWiring wiring;
  wiring.cache_zmq = {"127.0.0.1", 5555};
  wiring.cache_http_port = 8080;
  wiring.cache_prometheus_port = 9090;
  for (int i = 0; i < replicas; ++i) {
    wiring.replicas.push_back({absl::StrCat("127.0.0.", 2 + i), 8000});
  }
  wiring.proxy = {"127.0.0.1", 18080};
  wiring.proxy_admin_port = 12019;
  wiring.nvme_dir = kNvmeDir;
  auto gpus = SplitGpus(kNodeGpus, replicas, 2);
  REQUIRE(gpus.ok());
  wiring.replica_gpus = *gpus;
  return wiring;
}

const ProfileSet& ShippedProfiles() {
  static const ProfileSet* const profiles = [] {
    absl::StatusOr<ProfileSet> loaded = ProfileSet::LoadDir(KV_PROFILES_DIR);
    INFO(loaded.status().ToString());
    REQUIRE(loaded.ok());
    return new ProfileSet(*std::move(loaded));
  }();
  return *profiles;
}

const v1::Profile& Shipped(const std::string& name) {
  absl::StatusOr<const v1::Profile*> profile = ShippedProfiles().Find(name);
  INFO(profile.status().ToString());
  REQUIRE(profile.ok());
  return **profile;
}

std::vector<std::string> Words(absl::string_view text) {
  return absl::StrSplit(text, ' ', absl::SkipEmpty());
}

std::string EnvText(const std::map<std::string, std::string>& env) {
  std::string out;
  for (const auto& [name, value] : env) {
    absl::StrAppend(&out, out.empty() ? "" : ";", name, "=", value);
  }
  return out;
}

}  // namespace kvbench::agent::tiers::testing
