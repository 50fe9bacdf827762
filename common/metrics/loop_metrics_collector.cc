#include "common/metrics/loop_metrics_collector.h"

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/metric_type.h>

namespace kvbench {
namespace {

prometheus::ClientMetric LabelledValue(const std::string& loop, const std::string& task,
                                       prometheus::MetricType type, double value) {
  prometheus::ClientMetric metric;
  metric.label = {{"loop", loop}, {"task", task}};
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  return metric;
}

}  // namespace

LoopMetricsCollector::LoopMetricsCollector(std::string loop_name, const EventLoop* loop)
    : loop_name_(std::move(loop_name)), loop_(loop) {}

std::vector<prometheus::MetricFamily> LoopMetricsCollector::Collect() const {
  prometheus::MetricFamily runs{"kvbench_loop_tasks_total", "Tasks the event loop ran, by name",
                                prometheus::MetricType::Counter, {}};
  prometheus::MetricFamily seconds{"kvbench_loop_task_seconds_total",
                                   "Time the event loop spent in tasks, by name",
                                   prometheus::MetricType::Counter, {}};
  prometheus::MetricFamily max{"kvbench_loop_task_max_seconds",
                               "Longest single run of a task, by name",
                               prometheus::MetricType::Gauge, {}};
  for (const auto& [task, stats] : loop_->Stats()) {
    runs.metric.push_back(LabelledValue(loop_name_, task, runs.type, stats.runs));
    seconds.metric.push_back(LabelledValue(loop_name_, task, seconds.type,
                                           absl::ToDoubleSeconds(stats.total_time)));
    max.metric.push_back(
        LabelledValue(loop_name_, task, max.type, absl::ToDoubleSeconds(stats.max_time)));
  }
  return {runs, seconds, max};
}

}  // namespace kvbench
