#pragma once

// The one table of kvbench's metrics (metric_info.h): the tier comparison's rows, the metrics a
// regression is judged on (their diffs, verdicts, alerts, change points and /metrics gauges),
// the SLO metrics of a capacity search, and the values the results table and the report's charts
// show all read it. Adding a metric is a row here; one judged in regressions is also named in
// regression_metric.h's enum. Pure.

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "controller/results/metric_info.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// Every metric, in the order the tier comparison lists them.
const std::vector<MetricInfo>& AllMetrics();

// The metric named `key` (MetricInfo::key); nullptr for an unknown key.
const MetricInfo* FindMetric(absl::string_view key);
// The metric whose result column is `field` ("latency.ttft_p95_s"); nullptr for none.
const MetricInfo* FindMetricByField(absl::string_view field);
// The metric named `key`, a constant of the program: aborts when the catalog lacks it.
const MetricInfo& MetricNamed(absl::string_view key);

// The metrics a regression is judged on, in the order diffs list them (RegressionMetric
// numbers them): each has of_result, of_requests and a Prometheus name.
const std::vector<const MetricInfo*>& JudgedMetrics();
// The tier comparison's rows, in order.
std::vector<const MetricInfo*> ComparedMetrics();

// How a comparison row names the metric: its rows read as a list of quantities, so a label that
// starts with an ordinary word starts in lower case ("requests/s" for "Requests/s") while one
// that starts with an acronym keeps it ("TTFT p95", "KV cache usage mean", "LMCache ...").
std::string ComparisonLabel(const MetricInfo& metric);

// The value of `result` in the shown unit (of_result x shown_scale); nullopt when absent.
std::optional<double> ShownValue(const MetricInfo& metric, const v1::ScenarioResult& result);

}  // namespace kvbench::results
