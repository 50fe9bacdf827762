#pragma once

// `kvctl history` (issue #20): one metric of a schedule's runs over time, per agent x tier x
// concurrency, as data (what the table, CSV and JSON print) and as one self-contained HTML page
// with the report's line charts: one chart per agent and concurrency, one line per tier over the
// runs, agents (hardware) apart. Pure.

#include <optional>
#include <string>
#include <vector>

#include "kvbench/v1/job.pb.h"

namespace kvbench::report {

struct HistoryRun {
  std::string job_id;
  std::string fire_time;  // kvbench.fire_time, or the submit time (UTC, RFC 3339)
  std::string state;      // "succeeded", "failed", ...
};

// One line: the metric of one agent's tier at one concurrency, one value per run (null where that
// run has no such scenario, it did not succeed, or its result lacks the field).
struct HistorySeries {
  std::string agent_id;  // "" for a job that was not fanned out
  v1::Tier tier = v1::TIER_UNSPECIFIED;
  int concurrency = 0;
  std::vector<std::optional<double>> values;  // parallel to History::runs
};

// A change point the controller found in the schedule's history (issue #21): from run
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

struct History {
  std::string title;                  // e.g. "schedule nightly"
  std::string metric;                 // a result field, e.g. "latency.ttft_p50_s"
  std::vector<HistoryRun> runs;       // oldest first
  std::vector<HistorySeries> series;  // by agent, concurrency, tier
  std::vector<HistoryChangePoint> change_points;
};

std::string RenderHistoryHtml(const History& history);

}  // namespace kvbench::report
