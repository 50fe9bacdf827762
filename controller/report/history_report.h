#pragma once

// `kvctl history`: one metric of a schedule's runs over time, per agent x tier x
// concurrency, as data (what the table, CSV and JSON print) and as one self-contained HTML page
// with the report's line charts: one chart per agent and concurrency, one line per tier over the
// runs' times, agents (hardware) apart; change points and alerts marked on the runs they belong
// to; the metric in words and units, a simulated engine's in simulated time. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvbench/v1/job.pb.h"

namespace kvbench::report {

struct HistoryRun {
  std::string job_id;
  std::string fire_time;  // kvbench.fire_time, or the submit time (UTC, RFC 3339)
  double time_unix_s = 0;  // the same instant: the chart's x
  std::string state;       // "succeeded", "failed", ...
  // Each comparison group's verdict, "c2 valid", "c8@sim-a not_exercised" (job order).
  std::vector<std::string> verdicts;
  int alerts = 0;  // the regression alerts the controller raised on this run (every metric)
};

// One line: the metric of one agent's tier at one concurrency, one value per run (null where that
// run has no such scenario, it did not succeed, or its result lacks the field).
struct HistorySeries {
  std::string agent_id;  // "" for a job that was not fanned out
  v1::Tier tier = v1::TIER_UNSPECIFIED;
  int concurrency = 0;
  std::vector<std::optional<double>> values;  // parallel to History::runs
};

// A change point the controller found in the schedule's history: from run
// `run_index` on, the line's metric sits at a new level.
struct HistoryChangePoint {
  std::string agent_id;
  v1::Tier tier = v1::TIER_UNSPECIFIED;
  int concurrency = 0;
  size_t run_index = 0;  // into History::runs
  double magnitude_pct = 0;
  double p_value = 0;
  bool bad_direction = false;
};

// A regression alert the controller raised on run `run_index` for the history's metric.
struct HistoryAlert {
  std::string agent_id;
  v1::Tier tier = v1::TIER_UNSPECIFIED;
  int concurrency = 0;
  size_t run_index = 0;  // into History::runs
  std::string text;      // "regression +34.1% [+20.2%, +51.0%] against 5 runs since ..."
};

struct History {
  std::string title;   // e.g. "schedule nightly"
  std::string metric;  // a result field, e.g. "latency.ttft_p50_s"
  // The values of a latency field are a simulated engine's simulated seconds (its results'
  // simulated_latency, as every other screen shows them and the regression analysis judges them).
  bool simulated = false;
  std::vector<HistoryRun> runs;       // oldest first
  std::vector<HistorySeries> series;  // by agent, concurrency, tier
  std::vector<HistoryChangePoint> change_points;
  std::vector<HistoryAlert> alerts;
};

std::string RenderHistoryHtml(const History& history);

}  // namespace kvbench::report
