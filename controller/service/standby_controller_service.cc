#include "controller/service/standby_controller_service.h"

#include <utility>

#include "common/grpc/grpc_status.h"
#include "common/grpc/leader_hint.h"
#include "controller/service/call_authentication.h"
#include "controller/service/fill_response.h"

namespace kvbench::controller {
StandbyControllerService::StandbyControllerService(StoredViews* views, const LeaderView* leader,
                                                   std::optional<TokenVerifier> tokens)
    : views_(views), leader_(leader), tokens_(std::move(tokens)) {}

template <typename Answer>
grpc::ServerUnaryReactor* StandbyControllerService::Read(grpc::CallbackServerContext* context,
                                                         const char* method, Answer answer) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::Status status = AuthenticateCall(tokens_, context, method);
  if (status.ok()) status = answer();
  MarkAnswered(context, status);
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

grpc::ServerUnaryReactor* StandbyControllerService::Refuse(grpc::CallbackServerContext* context,
                                                           const char* method) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::Status status = AuthenticateCall(tokens_, context, method);
  if (status.ok()) {
    status = leader_->Refusal(method);
    AddLeaderHint(context, leader_->LeaderAddress());
  }
  MarkAnswered(context, status);
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

grpc::ServerUnaryReactor* StandbyControllerService::GetJob(grpc::CallbackServerContext* context,
                                                           const v1::GetJobRequest* request,
                                                           v1::Job* response) {
  return Read(context, "GetJob",
              [&] { return FillResponse(response, views_->GetJob(request->job_id())); });
}

grpc::ServerUnaryReactor* StandbyControllerService::ListJobs(grpc::CallbackServerContext* context,
                                                             const v1::ListJobsRequest* request,
                                                             v1::ListJobsResponse* response) {
  return Read(context, "ListJobs",
              [&] { return FillResponse(response, views_->ListJobs(*request)); });
}

grpc::ServerUnaryReactor* StandbyControllerService::ListRequests(
    grpc::CallbackServerContext* context, const v1::ListRequestsRequest* request,
    v1::ListRequestsResponse* response) {
  return Read(context, "ListRequests",
              [&] { return FillResponse(response, views_->ListRequests(*request)); });
}

grpc::ServerUnaryReactor* StandbyControllerService::GetSchedule(
    grpc::CallbackServerContext* context, const v1::GetScheduleRequest* request,
    v1::Schedule* response) {
  return Read(context, "GetSchedule",
              [&] { return FillResponse(response, views_->GetSchedule(request->name())); });
}

grpc::ServerUnaryReactor* StandbyControllerService::ListSchedules(
    grpc::CallbackServerContext* context, const v1::ListSchedulesRequest*,
    v1::ListSchedulesResponse* response) {
  return Read(context, "ListSchedules",
              [&] { return FillResponse(response, views_->ListSchedules()); });
}

grpc::ServerUnaryReactor* StandbyControllerService::GetBaseline(
    grpc::CallbackServerContext* context, const v1::GetBaselineRequest* request,
    v1::Baseline* response) {
  return Read(context, "GetBaseline",
              [&] { return FillResponse(response, views_->GetBaseline(*request)); });
}

grpc::ServerUnaryReactor* StandbyControllerService::ListChangePoints(
    grpc::CallbackServerContext* context, const v1::ListChangePointsRequest* request,
    v1::ListChangePointsResponse* response) {
  return Read(context, "ListChangePoints",
              [&] { return FillResponse(response, views_->ListChangePoints(*request)); });
}

grpc::ServerUnaryReactor* StandbyControllerService::ListAlerts(grpc::CallbackServerContext* context,
                                                               const v1::ListAlertsRequest* request,
                                                               v1::ListAlertsResponse* response) {
  return Read(context, "ListAlerts",
              [&] { return FillResponse(response, views_->ListAlerts(*request)); });
}

grpc::ServerUnaryReactor* StandbyControllerService::SubmitJob(grpc::CallbackServerContext* context,
                                                              const v1::SubmitJobRequest*,
                                                              v1::SubmitJobResponse*) {
  return Refuse(context, "SubmitJob");
}

grpc::ServerUnaryReactor* StandbyControllerService::CancelJob(grpc::CallbackServerContext* context,
                                                              const v1::CancelJobRequest*,
                                                              v1::Job*) {
  return Refuse(context, "CancelJob");
}

grpc::ServerUnaryReactor* StandbyControllerService::ListAgents(grpc::CallbackServerContext* context,
                                                               const v1::ListAgentsRequest*,
                                                               v1::ListAgentsResponse*) {
  return Refuse(context, "ListAgents");
}

grpc::ServerWriteReactor<v1::WatchJobResponse>* StandbyControllerService::WatchJob(
    grpc::CallbackServerContext* context, const v1::WatchJobRequest*) {
  class Refused : public grpc::ServerWriteReactor<v1::WatchJobResponse> {
   public:
    explicit Refused(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
    void OnDone() override { delete this; }
  };
  absl::Status status = AuthenticateCall(tokens_, context, "WatchJob");
  if (status.ok()) {
    status = leader_->Refusal("WatchJob");
    AddLeaderHint(context, leader_->LeaderAddress());
  }
  MarkAnswered(context, status);
  return new Refused(status);
}

grpc::ServerUnaryReactor* StandbyControllerService::CreateSchedule(
    grpc::CallbackServerContext* context, const v1::CreateScheduleRequest*, v1::Schedule*) {
  return Refuse(context, "CreateSchedule");
}

grpc::ServerUnaryReactor* StandbyControllerService::SetSchedulePaused(
    grpc::CallbackServerContext* context, const v1::SetSchedulePausedRequest*, v1::Schedule*) {
  return Refuse(context, "SetSchedulePaused");
}

grpc::ServerUnaryReactor* StandbyControllerService::DeleteSchedule(
    grpc::CallbackServerContext* context, const v1::DeleteScheduleRequest*,
    v1::DeleteScheduleResponse*) {
  return Refuse(context, "DeleteSchedule");
}

grpc::ServerUnaryReactor* StandbyControllerService::RunScheduleNow(
    grpc::CallbackServerContext* context, const v1::RunScheduleNowRequest*, v1::ScheduleFire*) {
  return Refuse(context, "RunScheduleNow");
}

grpc::ServerUnaryReactor* StandbyControllerService::SetBaseline(
    grpc::CallbackServerContext* context, const v1::SetBaselineRequest*, v1::Baseline*) {
  return Refuse(context, "SetBaseline");
}

grpc::ServerUnaryReactor* StandbyControllerService::RedeliverAlerts(
    grpc::CallbackServerContext* context, const v1::RedeliverAlertsRequest*,
    v1::RedeliverAlertsResponse*) {
  return Refuse(context, "RedeliverAlerts");
}

}  // namespace kvbench::controller
