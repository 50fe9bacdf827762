#pragma once

// ControllerClient over gRPC: the one file of the client library that speaks gRPC.

#include <map>
#include <memory>
#include <string>

#include "absl/random/random.h"
#include "common/grpc/controller_addresses.h"
#include "controller/client/controller_client.h"
#include "kvbench/v1/controller_service.grpc.pb.h"

namespace grpc {
class ChannelCredentials;
class ClientContext;
}  // namespace grpc

namespace kvbench::client {

class GrpcControllerClient : public ControllerClient {
 public:
  // connection.address: one controller, or several comma-separated (controllers sharing a
  // PostgreSQL store): each call goes to the leader, following a standby's redirect.
  // INVALID_ARGUMENT for an empty entry.
  static absl::StatusOr<std::unique_ptr<GrpcControllerClient>> Create(
      const ControllerConnection& connection);
  ~GrpcControllerClient() override;

  absl::StatusOr<v1::SubmitJobResponse> SubmitJob(const v1::SubmitJobRequest& request) override;
  absl::StatusOr<v1::Job> GetJob(const std::string& job_id) override;
  absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& request) override;
  absl::StatusOr<v1::Job> CancelJob(const std::string& job_id, const std::string& reason) override;
  absl::StatusOr<v1::ListAgentsResponse> ListAgents() override;
  absl::StatusOr<v1::ListRequestsResponse> ListRequests(
      const v1::ListRequestsRequest& request) override;
  absl::StatusOr<v1::Schedule> CreateSchedule(const v1::ScheduleSpec& spec, bool replace) override;
  absl::StatusOr<v1::Schedule> GetSchedule(const std::string& name) override;
  absl::StatusOr<v1::ListSchedulesResponse> ListSchedules() override;
  absl::StatusOr<v1::Schedule> SetSchedulePaused(const std::string& name, bool paused) override;
  absl::Status DeleteSchedule(const std::string& name) override;
  absl::StatusOr<v1::ScheduleFire> RunScheduleNow(const std::string& name) override;
  absl::StatusOr<v1::Baseline> SetBaseline(const v1::SetBaselineRequest& request) override;
  absl::StatusOr<v1::Baseline> GetBaseline(const std::string& schedule) override;
  absl::StatusOr<v1::ListChangePointsResponse> ListChangePoints(
      const std::string& schedule) override;
  absl::StatusOr<v1::ListAlertsResponse> ListAlerts(const v1::ListAlertsRequest& request) override;
  absl::StatusOr<v1::RedeliverAlertsResponse> RedeliverAlerts(
      const v1::RedeliverAlertsRequest& request) override;
  absl::Status WatchJob(const v1::WatchJobRequest& request,
                        const std::function<bool(const v1::WatchJobResponse&)>& on_event,
                        StopSource* cancel) override;

 private:
  GrpcControllerClient(ControllerConnection connection, ControllerAddresses addresses,
                       std::shared_ptr<grpc::ChannelCredentials> credentials);

  // The stub of the current address, its channel made on first use.
  v1::Controller::Stub& Stub();
  // The bearer token, and `deadline` unless infinite.
  void Prepare(grpc::ClientContext* context, absl::Time deadline) const;
  // After `failure` of a call to the current address: true when the call should be tried again
  // (UNAVAILABLE, another address to go to or a leader named, time left before `give_up`), the
  // current address moved on; pauses after a whole round without a leader.
  bool MoveOn(const absl::Status& failure, absl::Time give_up);
  // One unary call of the stub's `method`, on whichever controller leads.
  template <typename Response, typename Request, typename Method>
  absl::StatusOr<Response> Unary(Method method, const Request& request);

  const ControllerConnection connection_;
  ControllerAddresses addresses_;
  const std::shared_ptr<grpc::ChannelCredentials> credentials_;
  std::map<std::string, std::unique_ptr<v1::Controller::Stub>> stubs_;  // by address
  absl::BitGen random_;  // SubmitJob's idempotency keys
};

}  // namespace kvbench::client
