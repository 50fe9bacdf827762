#pragma once

// `kvctl diff A B` and the controller's check of a scheduled run against its baseline: the
// scenarios of two sides matched by tier, concurrency and agent class, and for each
// match every regression metric's change with its bootstrap interval and verdict. A side is one
// job or several (a baseline segment), pooled per scenario. Pure.

#include <map>
#include <string>
#include <vector>

#include "controller/regression/bootstrap_diff.h"
#include "controller/regression/family_wise.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::regression {

// A job and its scenarios' request rows (by scenario id), as ListRequests or a local run's
// requests.jsonl give them.
struct JobRequests {
  v1::Job job;
  std::map<std::string, std::vector<v1::RequestRow>> rows;
};

// The agent class of a scenario: the agent a fanned-out scenario is pinned to, else the agent
// that ran it ("" when none did). What `kvctl history` keys its lines by.
std::string AgentClassOf(const v1::ScenarioStatus& status);

struct ScenarioDiff {
  v1::Tier tier = v1::TIER_UNSPECIFIED;
  int32_t concurrency = 0;
  std::string agent;                     // the agent class ("" for local runs)
  std::vector<std::string> before_runs;  // "<job id>/<scenario id>"
  std::vector<std::string> after_runs;
  std::vector<MetricDiff> metrics;  // AllRegressionMetrics() order
  std::string note;                 // e.g. the agents differed; a release change
  // The releases that differ between the sides ("vllm 0.12.0 → 0.33.0", version_change.h): a
  // likely cause of any change; "" when none did.
  std::string version_change;
};

// Runs that must show how whole runs of a scenario vary (its RunSpread) before its diff may say
// regression or improvement: without them the users' spread alone makes too narrow an interval
// (tests/bench/regression_campaign.sh: one A/A run against one other said "regression" in 11 of
// 76 TTFT p50/p95 tests; against the runs since the last change point, with this rule, in 0).
inline constexpr int kMinRunsForVerdict = 3;

struct JobDiff {
  // As given, but for resamples: raised when a family needs more (ResamplesForFamily).
  DiffOptions options;
  // Said above the table when a verdict was withheld for want of runs (kMinRunsForVerdict).
  std::string caveat;
  std::vector<ScenarioDiff> scenarios;  // by concurrency, tier, agent
  // Succeeded scenarios with no counterpart on the other side, e.g. "after: nvme c4 @sim-a".
  std::vector<std::string> unmatched;
  // The families of tests whose verdicts were controlled together (family_wise.h), in the order
  // given to DiffJobs.
  std::vector<TestFamily> families;
};

// Metrics whose tests, over every scenario of a diff, form one family for the family-wise
// control. Empty: one family of every metric (kvctl diff). Metrics in none of those listed form
// one more family (the controller lists its alert metrics: what may raise an alert is a family
// of its own, the rest another).
using MetricFamilies = std::vector<std::vector<RegressionMetric>>;

// Run-to-run spread per scenario key (ScenarioKeyText of the after side's tier, concurrency and
// agent class): see BootstrapDiff.
using SpreadByScenario = std::map<std::string, RunSpread>;

// Succeeded scenarios only (their result gives the time scale). Scenarios match on (tier,
// concurrency, agent class); left over ones then on (tier, concurrency) when exactly one is left
// on each side, with a note naming the agents. A scenario whose spread holds fewer than
// kMinRunsForVerdict runs gets `inconclusive` where it would get regression or improvement, with a
// note saying so. Then each family's tests are controlled together (ControlFamilyWise): a
// regression or improvement stands only where Holm keeps it too.
JobDiff DiffJobs(const std::vector<JobRequests>& before, const std::vector<JobRequests>& after,
                 const DiffOptions& options, const SpreadByScenario& spreads = {},
                 const MetricFamilies& families = {});

// The spread of each scenario of `jobs` (their results: regression::MetricsOfResult).
SpreadByScenario SpreadOfJobs(const std::vector<const v1::Job*>& jobs);

// "gpu c2 @sim-a" ("gpu c2" without an agent).
std::string ScenarioKeyText(v1::Tier tier, int32_t concurrency, const std::string& agent);

}  // namespace kvbench::regression
