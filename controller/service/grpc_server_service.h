#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "controller/analysis/regression_queries.h"
#include "controller/core/job_manager.h"
#include "controller/lease/leader_view.h"
#include "controller/schedule/schedule_firer.h"
#include "controller/store/store.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::controller {

// The controller's gRPC server: Controller and AgentLink on one port, with the gRPC health
// service and server reflection (grpc.reflection.v1alpha). TLS with client certificates
// requested (agents must present one) and bearer tokens, unless config.insecure().
class GrpcServerService {
 public:
  // Listens on config.listen_address() ("host:0" picks a free port). INVALID_ARGUMENT /
  // NOT_FOUND for bad credentials or tokens, UNAVAILABLE when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<GrpcServerService>> Start(
      const v1::ControllerConfig& config, JobManager* manager, ScheduleFirer* schedules,
      Executor* executor, RegressionQueries* regressions = nullptr);
  // A standby's server (controllers sharing a store, one leading): reads answered from `store`,
  // writes and agents' links refused naming the leader that `leader` tells
  // (StandbyControllerService, StandbyAgentLinkService); the services' health NOT_SERVING.
  // Borrowed: store, clock, leader.
  static absl::StatusOr<std::unique_ptr<GrpcServerService>> StartStandby(
      const v1::ControllerConfig& config, Store* store, Clock* clock, const LeaderView* leader);
  ~GrpcServerService();

  // host:port actually bound.
  const std::string& address() const { return address_; }
  // Stops accepting, ends open streams, waits up to `grace` for calls to finish. Idempotent.
  void Shutdown(absl::Duration grace);

 private:
  struct Impl;
  explicit GrpcServerService(std::unique_ptr<Impl> impl, std::string address);
  // Builds and starts the server of `impl`'s services on config.listen_address().
  static absl::StatusOr<std::unique_ptr<GrpcServerService>> Serve(
      const v1::ControllerConfig& config, std::unique_ptr<Impl> impl, bool serving);

  std::unique_ptr<Impl> impl_;
  const std::string address_;
};

}  // namespace kvbench::controller
