#include "controller/regression/version_change.h"

#include <catch2/catch.hpp>

// A release change beside a metric change is named as its likely cause.
namespace kvbench::regression {
namespace {

v1::ScenarioResult WithVersions(const std::vector<std::pair<std::string, std::string>>& versions) {
  v1::ScenarioResult result;
  for (const auto& [component, version] : versions) {
    v1::ComponentVersion* entry = result.add_versions();
    entry->set_component(component);
    entry->set_version(version);
  }
  return result;
}

TEST_CASE("A release change between two sides is named but not kvbench's own revision") {
  ReleaseSet before, after;
  AddReleases(WithVersions({{"vllm", "0.12.0"}, {"lmcache", "0.5.6"}, {"kvbench", "0.9 (a)"}}),
              &before);
  AddReleases(WithVersions({{"vllm", "0.33.0"}, {"lmcache", "0.5.6"}, {"kvbench", "0.9 (b)"}}),
              &after);
  CHECK(VersionChangeText(before, after) == "vllm 0.12.0 → 0.33.0");
  CHECK(VersionChangeText(before, before).empty());
  ReleaseSet unknown;
  AddReleases(WithVersions({{"vllm", "unknown"}}), &unknown);
  CHECK(unknown.empty());
  CHECK(VersionChangeText(unknown, after).empty());  // nothing to compare with
}

v1::Job RunWith(const std::string& id, const std::string& vllm) {
  v1::Job job;
  job.set_job_id(id);
  v1::ScenarioStatus* status = job.add_scenarios();
  status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
  status->mutable_scenario()->set_tier(v1::CPU_RAM);
  status->mutable_scenario()->set_concurrency(8);
  *status->mutable_result() = WithVersions({{"vllm", vllm}});
  return job;
}

TEST_CASE("A change point's likely cause is the release change at its run") {
  const v1::Job a = RunWith("j1", "0.12.0"), b = RunWith("j2", "0.12.0"),
                c = RunWith("j3", "0.33.0");
  v1::ChangePoint point;
  point.set_tier(v1::CPU_RAM);
  point.set_concurrency(8);
  point.set_job_id("j3");
  CHECK(ChangePointVersionChange({&a, &b, &c}, point) == "vllm 0.12.0 → 0.33.0");
  point.set_job_id("j2");
  CHECK(ChangePointVersionChange({&a, &b, &c}, point).empty());
  point.set_job_id("j3");
  point.set_concurrency(16);  // another series
  CHECK(ChangePointVersionChange({&a, &b, &c}, point).empty());
}

}  // namespace
}  // namespace kvbench::regression
