#include "controller/spec/scenario_expander.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/spec/job_spec_defaults.h"

namespace kvbench::spec {
namespace {

v1::JobSpec Spec(std::vector<v1::Tier> tiers, std::vector<int> concurrency) {
  v1::JobSpec spec;
  spec.set_name("x");
  for (v1::Tier tier : tiers) spec.add_tiers(tier);
  for (int c : concurrency) spec.add_concurrency(c);
  ApplyJobSpecDefaults(&spec);
  return spec;
}

std::vector<std::string> Ids(const std::vector<v1::Scenario>& scenarios) {
  std::vector<std::string> ids;
  for (const auto& s : scenarios) ids.push_back(s.scenario_id());
  return ids;
}

TEST_CASE("Expansion is tiers x concurrency in a stable canonical order") {
  struct Case {
    std::vector<v1::Tier> tiers;
    std::vector<int> concurrency;
    std::vector<std::string> ids;
  };
  const std::vector<Case> cases = {
      {{v1::GPU}, {1}, {"00-gpu-c1"}},
      {{v1::GPU, v1::CPU_RAM, v1::NVME},
       {2, 8},
       {"00-gpu-c2", "01-cpu-ram-c2", "02-nvme-c2", "03-gpu-c8", "04-cpu-ram-c8", "05-nvme-c8"}},
      // The order of the spec's lists does not matter.
      {{v1::NVME, v1::GPU},
       {64, 4, 16},
       {"00-gpu-c4", "01-nvme-c4", "02-gpu-c16", "03-nvme-c16", "04-gpu-c64", "05-nvme-c64"}},
  };
  for (const Case& c : cases) {
    CHECK(Ids(ExpandScenarios(Spec(c.tiers, c.concurrency), "job-1")) == c.ids);
  }
}

TEST_CASE("Each scenario carries its cell, job, group and session count") {
  v1::JobSpec spec = Spec({v1::CPU_RAM, v1::GPU}, {8, 2});
  std::vector<v1::Scenario> scenarios = ExpandScenarios(spec, "job-7");
  REQUIRE(scenarios.size() == 4);
  const v1::Scenario& s = scenarios[3];
  CHECK(s.job_id() == "job-7");
  CHECK(s.index() == 3);
  CHECK(s.tier() == v1::CPU_RAM);
  CHECK(s.concurrency() == 8);
  CHECK(s.sessions() == 8);  // default: the concurrency
  CHECK(s.comparison_group() == "c8");
  CHECK(scenarios[2].comparison_group() == "c8");  // GPU at 8 users is its baseline

  spec.set_sessions(20);
  for (const v1::Scenario& scenario : ExpandScenarios(spec, "job-7")) {
    CHECK(scenario.sessions() == 20);
  }
}

TEST_CASE("Expanding the same spec twice gives identical scenarios") {
  v1::JobSpec spec = Spec({v1::NVME, v1::GPU, v1::CPU_RAM}, {3, 1, 2});
  auto a = ExpandScenarios(spec, "j");
  auto b = ExpandScenarios(spec, "j");
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i].SerializeAsString() == b[i].SerializeAsString());
}

TEST_CASE("Repeats interleave the tiers, share the group and step the seed") {
  v1::JobSpec spec = Spec({v1::CPU_RAM, v1::GPU}, {8, 2});
  spec.set_repeats(2);
  spec.set_seed(40);
  const std::vector<v1::Scenario> scenarios = ExpandScenarios(spec, "j");
  // GPU, CPU_RAM, GPU, CPU_RAM at each concurrency: drift on the node hits both tiers alike.
  CHECK(Ids(scenarios) == std::vector<std::string>{"00-gpu-c2-r1", "01-cpu-ram-c2-r1",
                                                   "02-gpu-c2-r2", "03-cpu-ram-c2-r2",
                                                   "04-gpu-c8-r1", "05-cpu-ram-c8-r1",
                                                   "06-gpu-c8-r2", "07-cpu-ram-c8-r2"});
  std::vector<int> repeats;
  std::vector<uint64_t> seeds;
  for (const v1::Scenario& scenario : scenarios) {
    repeats.push_back(scenario.repeat());
    seeds.push_back(scenario.seed());
    CHECK(scenario.comparison_group() == absl::StrCat("c", scenario.concurrency()));
  }
  CHECK(repeats == std::vector<int>{1, 1, 2, 2, 1, 1, 2, 2});
  // Repeat r runs with seed + r - 1, the same in every tier of the repeat.
  CHECK(seeds == std::vector<uint64_t>{40, 40, 41, 41, 40, 40, 41, 41});
  // Fanned out, the repeat stays in the id before the agent.
  CHECK(Ids(ExpandScenariosOnAgents(spec, "j", {"a"}))[2] == "02-gpu-c2-r2@a");
}

TEST_CASE("One repeat keeps the ids of jobs from before repeats, with the job's seed") {
  v1::JobSpec spec = Spec({v1::GPU}, {4});
  REQUIRE(spec.repeats() == 1);  // the default
  const std::vector<v1::Scenario> scenarios = ExpandScenarios(spec, "j");
  REQUIRE(scenarios.size() == 1);
  CHECK(scenarios[0].scenario_id() == "00-gpu-c4");
  CHECK(scenarios[0].repeat() == 1);
  CHECK(scenarios[0].seed() == spec.seed());
}

TEST_CASE("Tier slugs are what ids and file names use") {
  CHECK(TierSlug(v1::GPU) == "gpu");
  CHECK(TierSlug(v1::CPU_RAM) == "cpu-ram");
  CHECK(TierSlug(v1::NVME) == "nvme");
}

TEST_CASE("A capacity search expands into its first round and its probes interleave the tiers") {
  v1::JobSpec spec = Spec({v1::CPU_RAM, v1::GPU}, {});
  spec.mutable_concurrency_search()->set_min(2);
  spec.mutable_concurrency_search()->set_max(64);
  spec.mutable_slo()->set_ttft_p95_s(2);
  spec.set_repeats(2);
  spec.set_seed(7);
  CHECK(Ids(ExpandScenarios(spec, "j")) ==
        std::vector<std::string>{"00-gpu-c2-r1", "01-cpu-ram-c2-r1", "02-gpu-c2-r2",
                                 "03-cpu-ram-c2-r2"});
  // The next round: GPU at 16 (2 repeats), CPU_RAM re-running 8 (its repeats 3 and 4).
  const std::vector<v1::Scenario> next =
      ExpandProbes(spec, "j", 10, {{v1::CPU_RAM, 8, 3, 2}, {v1::GPU, 16, 1, 2}});
  CHECK(Ids(next) == std::vector<std::string>{"10-gpu-c16-r1", "11-cpu-ram-c8-r3", "12-gpu-c16-r2",
                                              "13-cpu-ram-c8-r4"});
  CHECK(next[1].seed() == 9);  // seed + repeat - 1
  CHECK(next[1].comparison_group() == "c8");
  // At least kMinProbeSessions users, so every probe can be resampled.
  CHECK(next[1].sessions() == kMinProbeSessions);
  CHECK(next[0].sessions() == 16);
  spec.set_sessions(64);
  CHECK(ExpandProbes(spec, "j", 0, {{v1::GPU, 2, 1, 1}})[0].sessions() == 64);
}

}  // namespace
}  // namespace kvbench::spec
