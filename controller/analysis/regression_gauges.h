#pragma once

// The controller's /metrics view of scheduled runs, what deploy/prometheus's rules
// and deploy/grafana's dashboard query: per schedule x agent x tier x concurrency x metric the
// latest run's value (kvbench_schedule_result), whether it regressed (kvbench_schedule_regression)
// and its change against the baseline (kvbench_schedule_change_ratio); per schedule x tier a
// capacity search's answer (kvbench_schedule_capacity_users); per schedule when the
// latest run ended and whether it succeeded; alert deliveries by state. Loop thread only.

#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/regression.pb.h"

namespace kvbench::controller {

class RegressionGauges {
 public:
  explicit RegressionGauges(prometheus::Registry* registry);

  // The schedule's latest ended run and its analysis: replaces every series of the schedule.
  void SetLatestRun(const std::string& schedule, const v1::Job& job,
                    const v1::RunAnalysis& analysis);
  // Removes a deleted schedule's series.
  void RemoveSchedule(const std::string& schedule);
  // Removes the series of every schedule not in `schedules` (deleted ones: their regression and
  // staleness must not alert forever).
  void RetainSchedules(const std::set<std::string>& schedules);
  void SetDeliveryCounts(const std::map<v1::DeliveryState, int64_t>& counts);

  // The metric label of a regression metric key ("ttft_p95_s" -> "ttft_p95_seconds",
  // "cache_hit_pct" -> "prefix_cache_hit_ratio"); "" for an unknown key.
  static std::string PrometheusMetricName(const std::string& key);

 private:
  prometheus::Family<prometheus::Gauge>& result_;
  prometheus::Family<prometheus::Gauge>& regression_;
  prometheus::Family<prometheus::Gauge>& change_ratio_;
  prometheus::Family<prometheus::Gauge>& last_run_timestamp_;
  prometheus::Family<prometheus::Gauge>& last_run_succeeded_;
  prometheus::Family<prometheus::Gauge>& deliveries_;
  prometheus::Family<prometheus::Gauge>& capacity_;
  // Every gauge made for a schedule, to remove when its series are replaced.
  std::map<std::string,
           std::vector<std::pair<prometheus::Family<prometheus::Gauge>*, prometheus::Gauge*>>>
      by_schedule_;
};

}  // namespace kvbench::controller
