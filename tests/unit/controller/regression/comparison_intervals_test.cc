#include "controller/regression/comparison_intervals.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/stats/percentiles.h"
#include "controller/results/few_scrapes.h"
#include "tests/unit/controller/regression/synthetic_runs.h"

namespace kvbench::regression {
namespace {

using testing::RunShape;
using testing::SyntheticRows;

// One succeeded scenario of group c8 (its result carries no latency: the intervals' values come
// from the rows).
results::ScenarioRun Scenario(v1::Tier tier, int repeat) {
  results::ScenarioRun run;
  run.scenario.set_scenario_id(absl::StrCat(v1::Tier_Name(tier), "-r", repeat));
  run.scenario.set_tier(tier);
  run.scenario.set_concurrency(8);
  run.scenario.set_comparison_group("c8");
  run.scenario.set_repeat(repeat);
  run.state = v1::SCENARIO_STATE_SUCCEEDED;
  run.result.emplace();
  return run;
}

struct Job {
  std::vector<results::ScenarioRun> runs;
  RowsByScenario rows;

  void Add(v1::Tier tier, int repeat, const RunShape& shape, uint64_t seed) {
    runs.push_back(Scenario(tier, repeat));
    rows[runs.back().scenario.scenario_id()] = SyntheticRows(shape, seed);
  }

  std::vector<results::ComparisonGroup> Compare() const {
    std::vector<results::ComparisonGroup> groups = results::BuildComparison(runs, {});
    DiffOptions options;
    options.resamples = 500;
    AttachDeltaIntervals(runs, rows, options, &groups);
    return groups;
  }
};

const results::ComparisonRow& Row(const results::ComparisonGroup& group, const std::string& name) {
  for (const results::ComparisonRow& row : group.rows) {
    if (row.metric == name) return row;
  }
  FAIL("no row " << name);
  return group.rows.front();
}

// The TTFT p95 over every row of the scenarios, in ms: what an independent reader computes from
// the requests.jsonl files.
double PooledP95Ms(const RowsByScenario& rows, const std::vector<std::string>& ids) {
  std::vector<double> ttft;
  for (const std::string& id : ids) {
    for (const v1::RequestRow& row : rows.at(id)) ttft.push_back(row.ttft_s());
  }
  return *stats::Percentile(ttft, 95) * 1000;
}

TEST_CASE("A tier that halves every TTFT shows -50% with an interval that excludes 0",
          "[regression]") {
  RunShape gpu;
  gpu.user_spread = 0;
  gpu.request_spread = 0;
  RunShape cpu = gpu;
  cpu.ttft_s = gpu.ttft_s / 2;
  Job job;
  job.Add(v1::GPU, 1, gpu, 1);
  job.Add(v1::CPU_RAM, 1, cpu, 1);
  const std::vector<results::ComparisonGroup> groups = job.Compare();
  REQUIRE(groups.size() == 1);
  const results::ComparisonRow& p95 = Row(groups[0], "TTFT p95");
  CHECK(*p95.values[0] == Approx(200));
  CHECK(*p95.values[1] == Approx(100));
  CHECK(*p95.deltas[1] == Approx(-50));
  REQUIRE(p95.intervals[1].has_value());
  CHECK(p95.intervals[1]->low == Approx(-50));
  CHECK(p95.intervals[1]->high == Approx(-50));
  CHECK_FALSE(p95.intervals[1]->ContainsZero());
  CHECK_FALSE(p95.intervals[0].has_value());  // the baseline has no delta
  // Rows that are not measured per request get no interval.
  CHECK_FALSE(Row(groups[0], "KV cache usage mean").intervals[1].has_value());
  CHECK(groups[0].interval_note == kOneRepeatNote);
}

TEST_CASE("Two draws of the same tier read as no clear difference", "[regression]") {
  Job job;
  job.Add(v1::GPU, 1, RunShape{}, 1);
  job.Add(v1::CPU_RAM, 1, RunShape{}, 2);
  const std::vector<results::ComparisonGroup> groups = job.Compare();
  for (const char* metric : {"TTFT p50", "TTFT p95", "TTFT mean"}) {
    const results::ComparisonRow& row = Row(groups[0], metric);
    REQUIRE(row.intervals[1].has_value());
    CHECK(row.intervals[1]->ContainsZero());
    // The delta shown is the one its interval is about.
    CHECK(*row.deltas[1] >= row.intervals[1]->low);
    CHECK(*row.deltas[1] <= row.intervals[1]->high);
  }
}

TEST_CASE("Repeats pool request by request and widen the interval by how runs vary",
          "[regression]") {
  // Each repeat of a tier moves as a whole (+-10% between runs), as a preemption cascade does.
  Job job;
  const std::vector<double> run_levels = {0.9, 1.0, 1.1};
  for (int repeat = 1; repeat <= 3; ++repeat) {
    RunShape gpu;
    gpu.ttft_s *= run_levels[repeat - 1];
    RunShape cpu = gpu;
    cpu.ttft_s *= 0.5;
    job.Add(v1::GPU, repeat, gpu, 10 + repeat);
    job.Add(v1::CPU_RAM, repeat, cpu, 20 + repeat);
  }
  const std::vector<results::ComparisonGroup> groups = job.Compare();
  REQUIRE(groups.size() == 1);
  const results::ComparisonGroup& group = groups[0];
  CHECK(group.repeats == 3);
  CHECK(group.columns[0].scenario_ids == std::vector<std::string>{"GPU-r1", "GPU-r2", "GPU-r3"});
  CHECK_THAT(group.interval_note, Catch::StartsWith("3 repeats per tier"));
  const results::ComparisonRow& p95 = Row(group, "TTFT p95");
  const double gpu = PooledP95Ms(job.rows, {"GPU-r1", "GPU-r2", "GPU-r3"});
  const double cpu = PooledP95Ms(job.rows, {"CPU_RAM-r1", "CPU_RAM-r2", "CPU_RAM-r3"});
  CHECK(*p95.values[0] == Approx(gpu));
  CHECK(*p95.values[1] == Approx(cpu));
  CHECK(*p95.deltas[1] == Approx((cpu - gpu) / gpu * 100));
  REQUIRE(p95.intervals[1].has_value());
  CHECK(p95.intervals[1]->low <= *p95.deltas[1]);
  CHECK(p95.intervals[1]->high >= *p95.deltas[1]);
  CHECK(p95.intervals[1]->high < 0);  // -50% stands out of the runs' +-10%
  // The same requests as one run per tier (users only, no run-to-run stage) give a narrower
  // interval: the repeats' own spread is what the first stage adds.
  Job merged;
  for (const results::ScenarioRun& run : job.runs) {
    const std::string id = absl::StrCat(v1::Tier_Name(run.scenario.tier()), "-r1");
    if (run.scenario.repeat() == 1) merged.runs.push_back(run);
    for (v1::RequestRow row : job.rows.at(run.scenario.scenario_id())) {
      row.set_user_id(absl::StrCat("r", run.scenario.repeat(), "-", row.user_id()));
      merged.rows[id].push_back(row);
    }
  }
  const std::vector<results::ComparisonGroup> merged_groups = merged.Compare();
  const results::ComparisonRow& users_only = Row(merged_groups[0], "TTFT p95");
  REQUIRE(users_only.intervals[1].has_value());
  CHECK(*users_only.deltas[1] == Approx(*p95.deltas[1]));
  CHECK(users_only.intervals[1]->high - users_only.intervals[1]->low <
        p95.intervals[1]->high - p95.intervals[1]->low);
}

TEST_CASE("A tier without request rows keeps its values and gets no interval", "[regression]") {
  Job job;
  job.Add(v1::GPU, 1, RunShape{}, 1);
  job.Add(v1::CPU_RAM, 1, RunShape{}, 2);
  job.Add(v1::NVME, 1, RunShape{}, 3);
  job.rows.erase("NVME-r1");
  const std::vector<results::ComparisonGroup> groups = job.Compare();
  const results::ComparisonRow& p95 = Row(groups[0], "TTFT p95");
  CHECK(p95.intervals[1].has_value());
  CHECK_FALSE(p95.intervals[2].has_value());
  CHECK_FALSE(p95.values[2].has_value());  // its result has no latency to fall back on
  job.rows.erase("GPU-r1");
  CHECK_THAT(job.Compare()[0].interval_note, Catch::Contains("no request rows for the GPU tier"));
}

}  // namespace
}  // namespace kvbench::regression

namespace kvbench::regression {
namespace {

// A KV usage mean of fewer than 5 in-replay scrapes is shown with its count: in the
// results table's cell and, per tier, under the comparison.
TEST_CASE("Comparison: KV usage means resting on few scrapes are said so", "[comparison]") {
  std::vector<results::ScenarioRun> runs = {Scenario(v1::GPU, 1), Scenario(v1::CPU_RAM, 1),
                                            Scenario(v1::CPU_RAM, 2)};
  runs[0].result->mutable_engine()->set_kv_cache_usage_scrapes(12);
  runs[1].result->mutable_engine()->set_kv_cache_usage_scrapes(3);
  runs[2].result->mutable_engine()->set_kv_cache_usage_scrapes(6);
  std::vector<results::ComparisonGroup> groups = results::BuildComparison(runs, {});
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].scrape_note ==
        "KV cache usage means rest on few in-replay scrapes (CPU_RAM 9): a mean of fewer than 5 "
        "moves with where the scrapes fell; a shorter sampling period_s gives more");
  CHECK(results::FewScrapesText(runs[1].result->engine()) == " (3 scrapes)");
  CHECK(results::FewScrapesText(runs[0].result->engine()).empty());
  runs[1].result->mutable_engine()->set_kv_cache_usage_scrapes(1);
  CHECK(results::FewScrapesText(runs[1].result->engine()) == " (1 scrape)");
  // Results recorded before the count: nothing said.
  for (results::ScenarioRun& run : runs)
    run.result->mutable_engine()->clear_kv_cache_usage_scrapes();
  CHECK(results::BuildComparison(runs, {})[0].scrape_note.empty());
}

}  // namespace
}  // namespace kvbench::regression
