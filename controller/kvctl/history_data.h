#pragma once

// The data of `kvctl history`: one result field of a schedule's runs, per agent x
// tier x concurrency, read from the jobs as the controller returns them. Pure.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/report/history_report.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// A capacity search's history metrics: per tier, its capacity and the interval's ends,
// one line per tier at concurrency 0.
inline constexpr char kCapacityUsersMetric[] = "capacity.users";
inline constexpr char kCapacityLowMetric[] = "capacity.low";
inline constexpr char kCapacityHighMetric[] = "capacity.high";

// Which lines of a history to keep (kvctl history --agent, --tier, --concurrency): unset keeps all.
struct HistoryFilter {
  std::string agent;
  std::optional<v1::Tier> tier;
  std::optional<int> concurrency;
};

// The regression metric a result field is judged as ("latency.ttft_p95_s" -> "ttft_p95_s"): the
// change points and alerts of that metric belong to the history of that field.
std::string RegressionMetricOf(const std::string& field);

// The runs ordered by submit time, oldest first; each scenario's line keyed by the agent it ran on
// (the one a FAN_OUT_EACH scenario is pinned to, else the one that ran it), tier and concurrency.
// A value is the metric's field of a SUCCEEDED scenario's result (FlattenResult's column names,
// e.g. latency.ttft_p95_s, throughput.requests_per_s, lmcache.lookup_hit_rate), else null; a
// latency field of a simulated engine's result is read from its simulated_latency (simulated
// seconds, as every screen shows them and the regression analysis judges them).
// Each run carries its time, its comparisons' verdicts and its alert count; the alerts the
// controller raised on the metric (job.analysis) are listed for the chart's markers.
// Lines not matching `filter` are left out.
// capacity.users / .low / .high: a capacity search's answer per tier (concurrency 0).
// NOT_FOUND naming numeric fields it could use when no run has the field; INVALID_ARGUMENT when
// the field is not a number.
absl::StatusOr<report::History> BuildHistory(std::vector<v1::Job> jobs, const std::string& metric,
                                             const std::string& title,
                                             const HistoryFilter& filter = {});

}  // namespace kvbench::kvctl
