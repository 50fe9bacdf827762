#include "controller/regression/result_metrics.h"

namespace kvbench::regression {

MetricValues MetricsOfResult(const v1::ScenarioResult& result) {
  MetricValues values;
  for (const RegressionMetricInfo& info : AllRegressionMetrics()) {
    values[static_cast<int>(info.metric)] = info.of_result(result);
  }
  return values;
}

}  // namespace kvbench::regression
