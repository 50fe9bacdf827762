#pragma once

#include <string>
#include <vector>

#include <prometheus/collectable.h>

#include "common/loop/event_loop.h"

namespace kvbench {

// Exposes an EventLoop's per-task statistics at scrape time:
//   kvbench_loop_tasks_total{loop,task}, kvbench_loop_task_seconds_total{loop,task},
//   kvbench_loop_task_max_seconds{loop,task}.
// The loop must outlive the collector's registration.
class LoopMetricsCollector : public prometheus::Collectable {
 public:
  LoopMetricsCollector(std::string loop_name, const EventLoop* loop);
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const std::string loop_name_;
  const EventLoop* loop_;
};

}  // namespace kvbench
