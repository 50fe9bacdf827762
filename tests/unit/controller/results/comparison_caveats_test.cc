// The caveats a tier comparison states beside its numbers: none for a clean pair;
// a small sample, hit rates computed two ways, and a rate window longer than the replay each
// said, with the counts they rest on.

#include "controller/results/comparison_caveats.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/unit/controller/results/validity_fixture.h"

namespace kvbench::results {
namespace {

using testing::CleanPair;

std::vector<std::vector<const ScenarioRun*>> Tiers(const std::vector<ScenarioRun>& runs) {
  std::vector<std::vector<const ScenarioRun*>> tiers;
  for (const ScenarioRun& run : runs) tiers.push_back({&run});
  return tiers;
}

// A clean pair with hit rates from the rolling rate's plateau over a replay longer than the
// window, and enough requests.
std::vector<ScenarioRun> Sound() {
  std::vector<ScenarioRun> runs = CleanPair();
  for (ScenarioRun& run : runs) {
    run.spec.mutable_sampling()->set_rate_window_s(20);
    run.result->mutable_latency()->set_duration_s(120);
    run.result->mutable_latency()->set_requests_completed(160);
    run.result->mutable_sessions()->set_achieved(32);
    run.result->mutable_engine()->set_local_hit_rate(0.5);
    run.result->mutable_engine()->set_hit_rate_method(v1::HIT_RATE_ROLLING_FINAL_QUARTER);
  }
  return runs;
}

TEST_CASE("Caveats: none for a sound comparison") {
  const std::vector<ScenarioRun> runs = Sound();
  CHECK(ComparisonCaveats(Tiers(runs)).empty());
}

TEST_CASE("Caveats: a tier of fewer than 20 requests is a small sample") {
  std::vector<ScenarioRun> runs = Sound();
  runs[1].result->mutable_latency()->set_requests_completed(10);
  runs[1].result->mutable_sessions()->set_achieved(2);
  const std::vector<std::string> caveats = ComparisonCaveats(Tiers(runs));
  REQUIRE(caveats.size() == 1);
  CHECK_THAT(caveats[0], Catch::StartsWith("small sample (GPU 160 requests of 32 users, CPU_RAM "
                                           "10 requests of 2 users): a p95 of fewer than 20"));
}

TEST_CASE("Caveats: hit rates computed two ways in one group") {
  std::vector<ScenarioRun> runs = Sound();
  runs[1].result->mutable_engine()->set_hit_rate_method(v1::HIT_RATE_BEFORE_AFTER);
  const std::vector<std::string> caveats = ComparisonCaveats(Tiers(runs));
  REQUIRE(caveats.size() == 1);
  CHECK(caveats[0] ==
        "hit rates computed two ways in this group (GPU: the rolling rate's final quarter; "
        "CPU_RAM: before/after the replay): their difference mixes the methods");
}

TEST_CASE("Caveats: a rate window longer than the replay makes the plateau cumulative") {
  std::vector<ScenarioRun> runs = Sound();
  for (ScenarioRun& run : runs) run.spec.mutable_sampling()->clear_rate_window_s();  // 300 s
  const std::vector<std::string> caveats = ComparisonCaveats(Tiers(runs));
  REQUIRE(caveats.size() == 1);
  CHECK_THAT(caveats[0], Catch::StartsWith("the hit rates' rolling window (300 s) is longer than "
                                           "the replay (up to 120.0 s)"));
}

}  // namespace
}  // namespace kvbench::results
