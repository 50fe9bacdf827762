#pragma once

#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "common/daemon/folder_lock.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "controller/core/job_manager.h"
#include "controller/service/grpc_server_service.h"
#include "controller/store/store.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::controller {

// The store's file under the data dir.
inline constexpr char kStoreFileName[] = "controller.db";

// The control plane's owner: the store (SQLite under the data dir), the job manager (jobs,
// agents, scheduling) and the gRPC server (Controller + AgentLink + health + reflection). Mutable
// state is touched on the executor's thread only.
//
// Members are declared in dependency order; Shutdown() undoes Start() in reverse.
class Controller {
 public:
  // `clock`, `executor` and `registry` are borrowed and must outlive the Controller. `config`
  // must be validated and completed (LoadControllerConfig). FAILED_PRECONDITION when the data
  // dir cannot be created; the store's error when its file cannot be opened.
  static absl::StatusOr<std::unique_ptr<Controller>> Create(v1::ControllerConfig config,
                                                            Clock* clock, Executor* executor,
                                                            prometheus::Registry* registry);
  ~Controller();

  // Starts serving; UNAVAILABLE when the listen address cannot be bound.
  absl::Status Start();
  // Stops accepting and ends every stream on a thread of its own (answers still queued on the
  // loop are delivered meanwhile), then runs `done` on the loop. Idempotent.
  void Shutdown(std::function<void()> done);

  const v1::ControllerConfig& config() const { return config_; }
  // host:port the gRPC server listens on (the port chosen when the config said 0).
  std::string address() const { return server_ == nullptr ? "" : server_->address(); }
  JobManager& jobs() { return *manager_; }

 private:
  static constexpr absl::Duration kHousekeepingPeriod = absl::Seconds(5);
  static constexpr absl::Duration kShutdownGrace = absl::Seconds(2);

  Controller(v1::ControllerConfig config, Clock* clock, Executor* executor,
             prometheus::Registry* registry, FolderLock data_dir_lock, std::unique_ptr<Store> store,
             std::unique_ptr<JobManager> manager);
  void Housekeeping();

  const v1::ControllerConfig config_;
  Clock* const clock_;
  Executor* const executor_;
  const absl::Duration start_monotonic_;
  prometheus::Gauge& uptime_seconds_;
  prometheus::Family<prometheus::Gauge>& link_gauges_;
  FolderLock data_dir_lock_;  // one controller per data_dir, for as long as this one lives
  std::unique_ptr<Store> store_;
  std::unique_ptr<JobManager> manager_;
  std::unique_ptr<GrpcServerService> server_;
  TaskId housekeeping_task_;
  std::thread shutdown_thread_;
};

}  // namespace kvbench::controller
