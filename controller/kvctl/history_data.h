#pragma once

// The data of `kvctl history` (issue #20): one result field of a schedule's runs, per agent x
// tier x concurrency, read from the jobs as the controller returns them. Pure.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/report/history_report.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// A capacity search's history metrics (issue #30): per tier, its capacity and the interval's ends,
// one line per tier at concurrency 0.
inline constexpr char kCapacityUsersMetric[] = "capacity.users";
inline constexpr char kCapacityLowMetric[] = "capacity.low";
inline constexpr char kCapacityHighMetric[] = "capacity.high";

// The runs ordered by submit time, oldest first; each scenario's line keyed by the agent it ran on
// (the one a FAN_OUT_EACH scenario is pinned to, else the one that ran it), tier and concurrency.
// A value is the metric's field of a SUCCEEDED scenario's result (FlattenResult's column names,
// e.g. latency.ttft_p95_s, throughput.requests_per_s, lmcache.lookup_hit_rate), else null.
// capacity.users / .low / .high: a capacity search's answer per tier (concurrency 0).
// NOT_FOUND naming numeric fields it could use when no run has the field; INVALID_ARGUMENT when
// the field is not a number.
absl::StatusOr<report::History> BuildHistory(std::vector<v1::Job> jobs, const std::string& metric,
                                             const std::string& title);

}  // namespace kvbench::kvctl
