#pragma once

// The regression metrics of a stored result (what a run reported, without its request rows):
// the values a schedule's history and its change points are made of, and what the controller
// exports to Prometheus. For a simulated engine, simulated seconds (results::ShownLatency), the
// unit of a diff's before and after. Pure.

#include "controller/regression/regression_metric.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::regression {

// The cached prompt tokens share is cached_tokens_total / prompt_tokens_total x 100 (null when no
// response reported cached tokens): the share ComputeMetrics gives over the same requests.
MetricValues MetricsOfResult(const v1::ScenarioResult& result);

}  // namespace kvbench::regression
