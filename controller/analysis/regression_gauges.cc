#include "controller/analysis/regression_gauges.h"

#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/lifecycle/lifecycle.h"
#include "controller/alerts/alert_text.h"
#include "controller/regression/job_diff.h"
#include "controller/regression/result_metrics.h"
#include "controller/results/metric_catalog.h"
#include "controller/spec/scenario_expander.h"

namespace kvbench::controller {
namespace {

std::string TierLabel(v1::Tier tier) {
  return absl::StrReplaceAll(spec::TierSlug(tier), {{"-", "_"}});
}

prometheus::Family<prometheus::Gauge>& Gauge(prometheus::Registry* registry, const char* name,
                                             const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(*registry);
}

}  // namespace

RegressionGauges::RegressionGauges(prometheus::Registry* registry)
    : result_(Gauge(registry, "kvbench_schedule_result",
                    "Latest successful scheduled run's value per scenario and metric (seconds, "
                    "per second, ratio)")),
      regression_(Gauge(registry, "kvbench_schedule_regression",
                        "1 when the latest run regressed against its baseline or opened a change "
                        "point in the bad direction, else 0")),
      change_ratio_(Gauge(registry, "kvbench_schedule_change_ratio",
                          "Latest run's change against its baseline (0.12 = +12%; for the hit "
                          "ratio, the difference of the ratios)")),
      last_run_timestamp_(Gauge(registry, "kvbench_schedule_last_run_timestamp_seconds",
                                "Unix time the schedule's latest run ended")),
      last_run_succeeded_(Gauge(registry, "kvbench_schedule_last_run_succeeded",
                                "1 when the schedule's latest run succeeded, else 0")),
      deliveries_(Gauge(registry, "kvbench_alert_deliveries",
                        "Regression alert deliveries to webhooks by state")),
      capacity_(Gauge(registry, "kvbench_schedule_capacity_users",
                      "Latest scheduled run's capacity at its SLO per tier (a concurrency "
                      "search): bound=\"capacity\" the most users meeting it, \"low\" and "
                      "\"high\" the interval the true one lies in")) {}

std::string RegressionGauges::PrometheusMetricName(const std::string& key) {
  const results::MetricInfo* metric = results::FindMetric(key);
  return metric == nullptr ? "" : metric->prometheus_name;
}

void RegressionGauges::RemoveSchedule(const std::string& schedule) {
  const auto it = by_schedule_.find(schedule);
  if (it == by_schedule_.end()) return;
  for (auto& [family, gauge] : it->second) family->Remove(gauge);
  by_schedule_.erase(it);
}

void RegressionGauges::RetainSchedules(const std::set<std::string>& schedules) {
  std::vector<std::string> gone;
  for (const auto& [schedule, gauges] : by_schedule_) {
    if (schedules.count(schedule) == 0) gone.push_back(schedule);
  }
  for (const std::string& schedule : gone) RemoveSchedule(schedule);
}

void RegressionGauges::SetLatestRun(const std::string& schedule, const v1::Job& job,
                                    const v1::RunAnalysis& analysis) {
  RemoveSchedule(schedule);
  auto& made = by_schedule_[schedule];
  auto set = [&made](prometheus::Family<prometheus::Gauge>& family,
                     const std::map<std::string, std::string>& labels, double value) {
    prometheus::Gauge& gauge = family.Add(labels);
    gauge.Set(value);
    made.emplace_back(&family, &gauge);
  };
  set(last_run_timestamp_, {{"schedule", schedule}},
      static_cast<double>(job.end_unix_ms()) / 1000.0);
  set(last_run_succeeded_, {{"schedule", schedule}},
      job.state() == v1::JOB_STATE_SUCCEEDED ? 1 : 0);
  // Regressions by series and metric: a diff verdict or a bad change point alert.
  std::set<std::tuple<std::string, v1::Tier, int32_t, std::string>> regressed;
  for (const v1::RegressionAlert& alert : analysis.alerts()) {
    regressed.emplace(alert.agent(), alert.tier(), alert.concurrency(), alert.metric());
  }
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    if (!SucceededWithResult(status)) continue;
    const std::string agent = regression::AgentClassOf(status);
    const regression::MetricValues values = regression::MetricsOfResult(status.result());
    for (const regression::RegressionMetricInfo& info : regression::AllRegressionMetrics()) {
      const std::map<std::string, std::string> labels = {
          {"schedule", schedule},
          {"agent", agent},
          {"tier", TierLabel(status.scenario().tier())},
          {"concurrency", absl::StrCat(status.scenario().concurrency())},
          {"metric", PrometheusMetricName(info.key)}};
      const auto& value = values[static_cast<int>(info.metric)];
      if (value) set(result_, labels, *value / info.prometheus_divisor);
      set(regression_, labels,
          regressed.count(
              {agent, status.scenario().tier(), status.scenario().concurrency(), info.key}) > 0
              ? 1
              : 0);
    }
  }
  for (const v1::TierCapacity& tier : job.capacity().tiers()) {
    if (!tier.finished() || !tier.has_capacity()) continue;
    const std::string slo = job.capacity().slo();
    for (const auto& [bound, value] : {std::pair<const char*, int>{"capacity", tier.capacity()},
                                       {"low", tier.low()},
                                       {"high", tier.high()}}) {
      set(capacity_,
          {{"schedule", schedule},
           {"tier", TierLabel(tier.tier())},
           {"slo", slo},
           {"bound", bound}},
          value);
    }
  }
  for (const v1::ScenarioChange& scenario : analysis.scenarios()) {
    for (const v1::MetricChange& metric : scenario.metrics()) {
      if (!metric.has_change()) continue;
      set(change_ratio_,
          {{"schedule", schedule},
           {"agent", scenario.agent()},
           {"tier", TierLabel(scenario.tier())},
           {"concurrency", absl::StrCat(scenario.concurrency())},
           {"metric", PrometheusMetricName(metric.metric())}},
          metric.change() / 100);
    }
  }
}

void RegressionGauges::SetDeliveryCounts(const std::map<v1::DeliveryState, int64_t>& counts) {
  for (v1::DeliveryState state :
       {v1::DELIVERY_PENDING, v1::DELIVERY_DELIVERED, v1::DELIVERY_FAILED}) {
    const auto it = counts.find(state);
    deliveries_.Add({{"state", DeliveryStateName(state)}})
        .Set(it == counts.end() ? 0 : static_cast<double>(it->second));
  }
}

}  // namespace kvbench::controller
