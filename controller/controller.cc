#include "controller/controller.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/json/proto_json.h"
#include "common/log/logging.h"
#include "common/metrics/daemon_info_metrics.h"

namespace kvbench::controller {

absl::StatusOr<std::unique_ptr<Controller>> Controller::Create(v1::ControllerConfig config,
                                                               Clock* clock, Executor* executor,
                                                               prometheus::Registry* registry) {
  std::error_code error;
  std::filesystem::create_directories(config.data_dir(), error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create data_dir ", config.data_dir(), ": ", error.message()));
  }
  RegisterDaemonInfoMetrics(registry, "controller", clock->Now());
  return std::unique_ptr<Controller>(new Controller(std::move(config), clock, executor, registry));
}

Controller::Controller(v1::ControllerConfig config, Clock* clock, Executor* executor,
                       prometheus::Registry* registry)
    : config_(std::move(config)),
      clock_(clock),
      executor_(executor),
      start_monotonic_(clock->Monotonic()),
      uptime_seconds_(prometheus::BuildGauge()
                          .Name("kvbench_controller_uptime_seconds")
                          .Help("Seconds since the controller started")
                          .Register(*registry)
                          .Add({})) {}

void Controller::Start() {
  // The config holds only token hashes, never tokens, so logging it whole is safe.
  KV_LOG(INFO) << "controller started listen=" << config_.listen_address()
               << " data_dir=" << config_.data_dir() << " config=" << ProtoToJson(config_);
  if (config_.insecure()) {
    KV_LOG(WARNING) << "insecure mode: no TLS and no bearer tokens; use only on a trusted host";
  }
  Housekeeping();
  housekeeping_task_ = executor_->RunEvery("controller.housekeeping", kHousekeepingPeriod,
                                           [this] { Housekeeping(); });
}

void Controller::Shutdown() {
  if (!housekeeping_task_.valid()) return;
  executor_->Cancel(housekeeping_task_);
  housekeeping_task_ = TaskId{};
  KV_LOG(INFO) << "controller stopped";
}

void Controller::Housekeeping() {
  uptime_seconds_.Set(absl::ToDoubleSeconds(clock_->Monotonic() - start_monotonic_));
}

}  // namespace kvbench::controller
