#pragma once

// The 95% interval of each regression metric of one side (a tier's repeats at one concurrency),
// from the same two-stage bootstrap as a diff (run_resample.h): what the capacity search judges an
// SLO by (met when the interval of the TTFT p95 lies under the target). Pure,
// deterministic given the options' seed and `stream`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "controller/regression/bootstrap_diff.h"

namespace kvbench::regression {

struct MetricInterval {
  RegressionMetric metric = RegressionMetric::kTtftP50;
  std::optional<double> value;  // over every user of the runs pooled (metric units: s, 1/s, %)
  std::optional<double> low;
  std::optional<double> high;
  std::string note;  // why there is no interval, when there is none
};

// Every metric, AllRegressionMetrics() order.
std::vector<MetricInterval> BootstrapValues(const std::vector<RunSample>& runs,
                                            const DiffOptions& options, uint64_t stream = 0);

}  // namespace kvbench::regression
