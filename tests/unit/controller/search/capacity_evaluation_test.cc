// EvaluateCapacity on synthetic request rows with known answers: a probe is
// met, missed or undecided by where its SLO metric's bootstrap interval lies; an undecided one
// gets more repeats; the headline says what was found, how well, and when offload was not what
// limited the GPU tier.

#include "controller/search/capacity_evaluation.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kvbench::search {
namespace {

v1::JobSpec Spec() {
  v1::JobSpec spec;
  spec.add_tiers(v1::GPU);
  spec.add_tiers(v1::CPU_RAM);
  spec.set_repeats(1);
  spec.mutable_slo()->set_ttft_p95_s(1);
  spec.mutable_concurrency_search()->set_min(4);
  spec.mutable_concurrency_search()->set_max(8);
  return spec;
}

struct Probes {
  std::vector<results::ScenarioRun> runs;
  std::map<std::string, std::vector<v1::RequestRow>> rows;

  // One succeeded repeat of `tier` at `concurrency`: 10 users x 4 requests, TTFT from `low` to
  // `high` spread evenly over the users.
  void Add(v1::Tier tier, int concurrency, double low, double high) {
    results::ScenarioRun& run = runs.emplace_back();
    const std::string id = absl::StrCat(runs.size(), "-", v1::Tier_Name(tier), "-c", concurrency);
    run.scenario.set_scenario_id(id);
    run.scenario.set_tier(tier);
    run.scenario.set_concurrency(concurrency);
    run.scenario.set_repeat(1);
    run.state = v1::SCENARIO_STATE_SUCCEEDED;
    run.result.emplace();
    std::vector<v1::RequestRow>& list = rows[id];
    for (int user = 0; user < 10; ++user) {
      for (int round = 0; round < 4; ++round) {
        v1::RequestRow& row = list.emplace_back();
        const double ttft = low + (high - low) * user / 9.0;
        row.set_user_id(absl::StrCat("u", user));
        row.set_round(round);
        row.set_scheduled_s(round);
        row.set_sent_s(round);
        row.set_first_token_s(round + ttft);
        row.set_ttft_s(ttft);
        row.set_end_s(round + ttft + 0.2);
        row.set_output_tokens(8);
        row.set_http_status(200);
      }
    }
  }
};

TEST_CASE("The first round is each tier at the search's min") {
  const CapacityEvaluation evaluation = EvaluateCapacity(Spec(), {}, {});
  REQUIRE(evaluation.next.size() == 2);
  CHECK(evaluation.next[0].tier == v1::GPU);
  CHECK(evaluation.next[0].concurrency == 4);
  CHECK(evaluation.next[0].first_repeat == 1);
  CHECK_FALSE(evaluation.report.finished());
  CHECK(evaluation.report.headline() == "At TTFT p95 ≤ 1 s: GPU searching, CPU_RAM searching");
}

TEST_CASE("Probes are judged by their interval against the target") {
  Probes probes;
  probes.Add(v1::GPU, 4, 0.1, 0.3);      // far under 1 s: met
  probes.Add(v1::GPU, 8, 3.0, 4.0);      // far over: missed
  probes.Add(v1::CPU_RAM, 4, 0.1, 0.3);  // met
  probes.Add(v1::CPU_RAM, 8, 0.2, 0.4);  // met at the max
  const CapacityEvaluation evaluation = EvaluateCapacity(Spec(), probes.runs, probes.rows);
  const v1::CapacityReport& report = evaluation.report;
  REQUIRE(report.tiers_size() == 2);
  const v1::TierCapacity& gpu = report.tiers(0);
  REQUIRE(gpu.probes_size() == 2);
  CHECK(gpu.probes(0).outcome() == "met");
  CHECK(gpu.probes(1).outcome() == "missed");
  // The measure is the rows' own p95, inside its interval.
  const v1::SloMeasure& measure = gpu.probes(1).measures(0);
  CHECK(measure.low_s() > 1);
  CHECK(measure.low_s() <= measure.value_s());
  CHECK(measure.value_s() <= measure.high_s());
  // GPU bisects 4..8 next (6); CPU_RAM met at the max: done, at_max.
  REQUIRE(evaluation.next.size() == 1);
  CHECK(evaluation.next[0].tier == v1::GPU);
  CHECK(evaluation.next[0].concurrency == 6);
  const v1::TierCapacity& cpu = report.tiers(1);
  CHECK(cpu.finished());
  CHECK(cpu.capacity() == 8);
  CHECK(cpu.at_max());
  CHECK_FALSE(report.finished());
  CHECK(report.headline() ==
        "At TTFT p95 ≤ 1 s: GPU searching, CPU_RAM ≥ 8 users (met at the search's max)");
}

TEST_CASE("A probe whose interval straddles the target gets more repeats, numbered on") {
  Probes probes;
  probes.Add(v1::GPU, 4, 0.1, 0.3);
  // p95 1.05 s, but a resample without the slowest users is under 1 s: the interval straddles it.
  probes.Add(v1::CPU_RAM, 4, 0.5, 1.05);
  const CapacityEvaluation evaluation = EvaluateCapacity(Spec(), probes.runs, probes.rows);
  const v1::TierCapacity& cpu = evaluation.report.tiers(1);
  CHECK(cpu.probes(0).outcome() == "undecided");
  bool more = false;
  for (const PlannedProbe& next : evaluation.next) {
    if (next.tier != v1::CPU_RAM) continue;
    more = true;
    CHECK(next.concurrency == 4);
    CHECK(next.first_repeat == 2);
  }
  CHECK(more);
}

TEST_CASE("Capacities, their intervals and the change against GPU make the headline") {
  Probes probes;
  for (v1::Tier tier : {v1::GPU, v1::CPU_RAM}) probes.Add(tier, 4, 0.1, 0.3);
  probes.Add(v1::GPU, 8, 3.0, 4.0);
  probes.Add(v1::GPU, 6, 3.0, 4.0);
  probes.Add(v1::GPU, 5, 3.0, 4.0);
  probes.Add(v1::CPU_RAM, 8, 0.1, 0.3);
  const CapacityEvaluation evaluation = EvaluateCapacity(Spec(), probes.runs, probes.rows);
  CHECK(evaluation.next.empty());
  CHECK(evaluation.report.finished());
  CHECK(evaluation.report.headline() ==
        "At TTFT p95 ≤ 1 s: GPU 4 users [4, 4], CPU_RAM ≥ 8 users (met at the search's max) "
        "(+100%)");
}

TEST_CASE("A tier that misses at the search's min has no capacity") {
  Probes probes;
  probes.Add(v1::GPU, 4, 3.0, 4.0);
  probes.Add(v1::CPU_RAM, 4, 3.0, 4.0);
  const CapacityEvaluation evaluation = EvaluateCapacity(Spec(), probes.runs, probes.rows);
  CHECK(evaluation.report.finished());
  CHECK_FALSE(evaluation.report.tiers(0).has_capacity());
  CHECK(evaluation.report.headline() ==
        "At TTFT p95 ≤ 1 s: GPU none (missed the SLO at the search's min), CPU_RAM none (missed "
        "the SLO at the search's min)");
}

TEST_CASE("A probe still running holds the round") {
  Probes probes;
  probes.Add(v1::GPU, 4, 0.1, 0.3);
  probes.Add(v1::CPU_RAM, 4, 0.1, 0.3);
  probes.runs[1].state = v1::SCENARIO_STATE_RUNNING;
  const CapacityEvaluation evaluation = EvaluateCapacity(Spec(), probes.runs, probes.rows);
  CHECK(evaluation.running);
  CHECK(evaluation.next.empty());
  CHECK(evaluation.report.tiers(1).probes(0).outcome() == "running");
}

TEST_CASE("The SLO reads as its targets") {
  v1::Slo slo;
  slo.set_ttft_p95_s(2);
  slo.set_tpot_mean_s(0.05);
  CHECK(SloText(slo) == "TTFT p95 ≤ 2 s, TPOT mean ≤ 50 ms");
}

}  // namespace
}  // namespace kvbench::search
