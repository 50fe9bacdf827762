#pragma once

#include <memory>

#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include "absl/status/statusor.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::controller {

// The control plane's owner: its data dir now; the store, scheduler, job manager, agent link and
// gRPC services in later stages. Mutable state is touched on the executor's thread only.
//
// Members are declared in dependency order; Shutdown() undoes Start() in reverse.
class Controller {
 public:
  // `clock`, `executor` and `registry` are borrowed and must outlive the Controller. `config`
  // must be validated and completed (LoadControllerConfig). FAILED_PRECONDITION when the data
  // dir cannot be created.
  static absl::StatusOr<std::unique_ptr<Controller>> Create(v1::ControllerConfig config,
                                                            Clock* clock, Executor* executor,
                                                            prometheus::Registry* registry);

  void Start();
  void Shutdown();  // idempotent

  const v1::ControllerConfig& config() const { return config_; }

 private:
  static constexpr absl::Duration kHousekeepingPeriod = absl::Seconds(5);

  Controller(v1::ControllerConfig config, Clock* clock, Executor* executor,
             prometheus::Registry* registry);
  void Housekeeping();

  const v1::ControllerConfig config_;
  Clock* const clock_;
  Executor* const executor_;
  const absl::Duration start_monotonic_;
  prometheus::Gauge& uptime_seconds_;
  TaskId housekeeping_task_;
};

}  // namespace kvbench::controller
