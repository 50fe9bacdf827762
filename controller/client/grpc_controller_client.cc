#include "controller/client/grpc_controller_client.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/grpc/grpc_credentials.h"
#include "common/grpc/grpc_status.h"
#include "common/sync/stop_callback.h"

namespace kvbench::client {

absl::StatusOr<std::unique_ptr<GrpcControllerClient>> GrpcControllerClient::Create(
    const ControllerConnection& connection) {
  if (connection.address.empty()) {
    return absl::InvalidArgumentError("no controller address");
  }
  if (connection.deadline <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("the call deadline must be positive");
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeClientChannelCredentials(connection.ca_cert_path, connection.insecure);
  if (!credentials.ok()) return credentials.status();
  std::shared_ptr<grpc::Channel> channel = grpc::CreateChannel(connection.address, *credentials);
  return std::unique_ptr<GrpcControllerClient>(
      new GrpcControllerClient(connection, v1::Controller::NewStub(channel)));
}

GrpcControllerClient::GrpcControllerClient(ControllerConnection connection,
                                           std::unique_ptr<v1::Controller::Stub> stub)
    : connection_(std::move(connection)), stub_(std::move(stub)) {}

void GrpcControllerClient::Prepare(grpc::ClientContext* context, bool unary) const {
  // Metadata, not CallCredentials: gRPC refuses call credentials on insecure channels.
  if (!connection_.token.empty()) {
    context->AddMetadata("authorization", absl::StrCat("Bearer ", connection_.token));
  }
  if (unary) context->set_deadline(absl::ToChronoTime(absl::Now() + connection_.deadline));
}

absl::StatusOr<v1::SubmitJobResponse> GrpcControllerClient::SubmitJob(
    const v1::SubmitJobRequest& request) {
  grpc::ClientContext context;
  Prepare(&context, /*unary=*/true);
  v1::SubmitJobResponse response;
  grpc::Status status = stub_->SubmitJob(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::Job> GrpcControllerClient::GetJob(const std::string& job_id) {
  grpc::ClientContext context;
  Prepare(&context, /*unary=*/true);
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  v1::Job response;
  grpc::Status status = stub_->GetJob(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::ListJobsResponse> GrpcControllerClient::ListJobs(
    const v1::ListJobsRequest& request) {
  grpc::ClientContext context;
  Prepare(&context, /*unary=*/true);
  v1::ListJobsResponse response;
  grpc::Status status = stub_->ListJobs(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::Job> GrpcControllerClient::CancelJob(const std::string& job_id,
                                                        const std::string& reason) {
  grpc::ClientContext context;
  Prepare(&context, /*unary=*/true);
  v1::CancelJobRequest request;
  request.set_job_id(job_id);
  request.set_reason(reason);
  v1::Job response;
  grpc::Status status = stub_->CancelJob(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::ListAgentsResponse> GrpcControllerClient::ListAgents() {
  grpc::ClientContext context;
  Prepare(&context, /*unary=*/true);
  v1::ListAgentsResponse response;
  grpc::Status status = stub_->ListAgents(&context, v1::ListAgentsRequest(), &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

template <typename Response, typename Request, typename Method>
absl::StatusOr<Response> GrpcControllerClient::Unary(Method method, const Request& request) {
  grpc::ClientContext context;
  Prepare(&context, /*unary=*/true);
  Response response;
  grpc::Status status = (stub_.get()->*method)(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::ListRequestsResponse> GrpcControllerClient::ListRequests(
    const v1::ListRequestsRequest& request) {
  return Unary<v1::ListRequestsResponse>(&v1::Controller::Stub::ListRequests, request);
}

absl::StatusOr<v1::Schedule> GrpcControllerClient::CreateSchedule(const v1::ScheduleSpec& spec,
                                                                  bool replace) {
  v1::CreateScheduleRequest request;
  *request.mutable_spec() = spec;
  request.set_replace(replace);
  return Unary<v1::Schedule>(&v1::Controller::Stub::CreateSchedule, request);
}

absl::StatusOr<v1::Schedule> GrpcControllerClient::GetSchedule(const std::string& name) {
  v1::GetScheduleRequest request;
  request.set_name(name);
  return Unary<v1::Schedule>(&v1::Controller::Stub::GetSchedule, request);
}

absl::StatusOr<v1::ListSchedulesResponse> GrpcControllerClient::ListSchedules() {
  return Unary<v1::ListSchedulesResponse>(&v1::Controller::Stub::ListSchedules,
                                          v1::ListSchedulesRequest());
}

absl::StatusOr<v1::Schedule> GrpcControllerClient::SetSchedulePaused(const std::string& name,
                                                                     bool paused) {
  v1::SetSchedulePausedRequest request;
  request.set_name(name);
  request.set_paused(paused);
  return Unary<v1::Schedule>(&v1::Controller::Stub::SetSchedulePaused, request);
}

absl::Status GrpcControllerClient::DeleteSchedule(const std::string& name) {
  v1::DeleteScheduleRequest request;
  request.set_name(name);
  return Unary<v1::DeleteScheduleResponse>(&v1::Controller::Stub::DeleteSchedule, request).status();
}

absl::StatusOr<v1::ScheduleFire> GrpcControllerClient::RunScheduleNow(const std::string& name) {
  v1::RunScheduleNowRequest request;
  request.set_name(name);
  return Unary<v1::ScheduleFire>(&v1::Controller::Stub::RunScheduleNow, request);
}

absl::StatusOr<v1::Baseline> GrpcControllerClient::SetBaseline(
    const v1::SetBaselineRequest& request) {
  return Unary<v1::Baseline>(&v1::Controller::Stub::SetBaseline, request);
}

absl::StatusOr<v1::Baseline> GrpcControllerClient::GetBaseline(const std::string& schedule) {
  v1::GetBaselineRequest request;
  request.set_schedule(schedule);
  return Unary<v1::Baseline>(&v1::Controller::Stub::GetBaseline, request);
}

absl::StatusOr<v1::ListChangePointsResponse> GrpcControllerClient::ListChangePoints(
    const std::string& schedule) {
  v1::ListChangePointsRequest request;
  request.set_schedule(schedule);
  return Unary<v1::ListChangePointsResponse>(&v1::Controller::Stub::ListChangePoints, request);
}

absl::StatusOr<v1::ListAlertsResponse> GrpcControllerClient::ListAlerts(
    const v1::ListAlertsRequest& request) {
  return Unary<v1::ListAlertsResponse>(&v1::Controller::Stub::ListAlerts, request);
}

absl::StatusOr<v1::RedeliverAlertsResponse> GrpcControllerClient::RedeliverAlerts(
    const v1::RedeliverAlertsRequest& request) {
  return Unary<v1::RedeliverAlertsResponse>(&v1::Controller::Stub::RedeliverAlerts, request);
}

absl::Status GrpcControllerClient::WatchJob(
    const v1::WatchJobRequest& request,
    const std::function<bool(const v1::WatchJobResponse&)>& on_event, StopSource* cancel) {
  // A watch lasts as long as the job: no deadline, only the bearer token.
  grpc::ClientContext context;
  Prepare(&context, /*unary=*/false);
  std::unique_ptr<grpc::ClientReader<v1::WatchJobResponse>> reader =
      stub_->WatchJob(&context, request);
  // Read() blocks; a requested stop cancels the call (TryCancel, from any thread), which ends it.
  StopCallback cancel_call(cancel, [&context] { context.TryCancel(); });
  v1::WatchJobResponse response;
  bool stopped = false;
  while (reader->Read(&response)) {
    if (!on_event(response)) {
      stopped = true;
      context.TryCancel();
      while (reader->Read(&response)) {
      }
      break;
    }
  }
  grpc::Status status = reader->Finish();
  if (stopped) return absl::OkStatus();
  if (cancel != nullptr && cancel->stop_requested()) return absl::CancelledError("watch cancelled");
  return FromGrpcStatus(status);
}

}  // namespace kvbench::client
