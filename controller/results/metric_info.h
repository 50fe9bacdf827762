#pragma once

// One metric as every screen, export and statistic of kvbench knows it: its names, how it is
// shown, which way is better, and how its value is read from a result or computed from request
// rows. The rows live in one table (metric_catalog.h); nothing else spells a metric's label,
// unit, scale or direction.

#include <optional>
#include <string>

#include "controller/results/pooled_requests.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// How a change is expressed: relative (%) for amounts, percentage points for a percentage.
enum class ChangeKind { kRelativePct, kPercentagePoints };

struct MetricInfo {
  // Stable name for programs: diff JSON, stored analyses, alerts, SLO fields ("ttft_p95_s").
  const char* key;
  // Its column in `kvctl results --output csv` and `kvctl history --metric`
  // ("latency.ttft_p95_s"); "" when the result has no such column.
  const char* field;
  const char* label;   // for people: "TTFT p95"
  const char* unit;    // of shown values: "ms", "tok/s", "req/s", "%"
  double shown_scale;  // shown value = value (seconds, per second, fraction, %) x this
  ChangeKind change_kind;
  bool higher_is_better;
  // The metric label of kvbench_schedule_result and friends on the controller's /metrics
  // ("ttft_p95_seconds"), "" when not exported; the exported value is the value / this divisor
  // (Prometheus' base units: seconds, ratios).
  const char* prometheus_name;
  double prometheus_divisor;
  // The value of a stored result (simulated seconds for a simulated engine, ShownLatency);
  // nullopt when the result does not have it.
  std::optional<double> (*of_result)(const v1::ScenarioResult& result);
  // The value over pooled request rows; nullptr when it is not computable from them.
  std::optional<double> (*of_requests)(const PooledRequests& requests);
  // The job spec's SLO target for it, in seconds; nullptr when it cannot be an SLO.
  std::optional<double> (*slo_target)(const v1::Slo& slo);
  // A row of the tier comparison (kvctl compare, kvctl run's closing table, the report).
  bool compared;
};

}  // namespace kvbench::results
