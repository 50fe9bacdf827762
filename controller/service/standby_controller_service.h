#pragma once

#include <grpcpp/grpcpp.h>

#include <optional>

#include "common/auth/token_verifier.h"
#include "controller/lease/leader_view.h"
#include "controller/service/stored_views.h"
#include "kvbench/v1/controller_service.grpc.pb.h"

namespace kvbench::controller {

// The Controller service of a standby (a controller waiting for the lease of a shared store):
// reads are answered from the store (StoredViews) on gRPC's thread; writes, WatchJob and
// ListAgents (the leader's memory: live streams, connected agents) are refused with UNAVAILABLE
// naming the leader, its address in the trailing metadata (common/grpc/leader_hint.h), so a
// client given several addresses goes there at once. Tokens are checked as the leader checks
// them.
class StandbyControllerService final : public v1::Controller::CallbackService {
 public:
  // Borrowed: `views`, `leader`. `tokens` nullopt = insecure mode.
  StandbyControllerService(StoredViews* views, const LeaderView* leader,
                           std::optional<TokenVerifier> tokens);

  // Reads.
  grpc::ServerUnaryReactor* GetJob(grpc::CallbackServerContext* context,
                                   const v1::GetJobRequest* request, v1::Job* response) override;
  grpc::ServerUnaryReactor* ListJobs(grpc::CallbackServerContext* context,
                                     const v1::ListJobsRequest* request,
                                     v1::ListJobsResponse* response) override;
  grpc::ServerUnaryReactor* ListRequests(grpc::CallbackServerContext* context,
                                         const v1::ListRequestsRequest* request,
                                         v1::ListRequestsResponse* response) override;
  grpc::ServerUnaryReactor* GetSchedule(grpc::CallbackServerContext* context,
                                        const v1::GetScheduleRequest* request,
                                        v1::Schedule* response) override;
  grpc::ServerUnaryReactor* ListSchedules(grpc::CallbackServerContext* context,
                                          const v1::ListSchedulesRequest* request,
                                          v1::ListSchedulesResponse* response) override;
  grpc::ServerUnaryReactor* GetBaseline(grpc::CallbackServerContext* context,
                                        const v1::GetBaselineRequest* request,
                                        v1::Baseline* response) override;
  grpc::ServerUnaryReactor* ListChangePoints(grpc::CallbackServerContext* context,
                                             const v1::ListChangePointsRequest* request,
                                             v1::ListChangePointsResponse* response) override;
  grpc::ServerUnaryReactor* ListAlerts(grpc::CallbackServerContext* context,
                                       const v1::ListAlertsRequest* request,
                                       v1::ListAlertsResponse* response) override;

  // The leader's.
  grpc::ServerUnaryReactor* SubmitJob(grpc::CallbackServerContext* context,
                                      const v1::SubmitJobRequest* request,
                                      v1::SubmitJobResponse* response) override;
  grpc::ServerUnaryReactor* CancelJob(grpc::CallbackServerContext* context,
                                      const v1::CancelJobRequest* request,
                                      v1::Job* response) override;
  grpc::ServerUnaryReactor* ListAgents(grpc::CallbackServerContext* context,
                                       const v1::ListAgentsRequest* request,
                                       v1::ListAgentsResponse* response) override;
  grpc::ServerWriteReactor<v1::WatchJobResponse>* WatchJob(
      grpc::CallbackServerContext* context, const v1::WatchJobRequest* request) override;
  grpc::ServerUnaryReactor* CreateSchedule(grpc::CallbackServerContext* context,
                                           const v1::CreateScheduleRequest* request,
                                           v1::Schedule* response) override;
  grpc::ServerUnaryReactor* SetSchedulePaused(grpc::CallbackServerContext* context,
                                              const v1::SetSchedulePausedRequest* request,
                                              v1::Schedule* response) override;
  grpc::ServerUnaryReactor* DeleteSchedule(grpc::CallbackServerContext* context,
                                           const v1::DeleteScheduleRequest* request,
                                           v1::DeleteScheduleResponse* response) override;
  grpc::ServerUnaryReactor* RunScheduleNow(grpc::CallbackServerContext* context,
                                           const v1::RunScheduleNowRequest* request,
                                           v1::ScheduleFire* response) override;
  grpc::ServerUnaryReactor* SetBaseline(grpc::CallbackServerContext* context,
                                        const v1::SetBaselineRequest* request,
                                        v1::Baseline* response) override;
  grpc::ServerUnaryReactor* RedeliverAlerts(grpc::CallbackServerContext* context,
                                            const v1::RedeliverAlertsRequest* request,
                                            v1::RedeliverAlertsResponse* response) override;

 private:
  // Authenticates, then finishes the call with `answer()`'s status (run here, on gRPC's thread).
  template <typename Answer>
  grpc::ServerUnaryReactor* Read(grpc::CallbackServerContext* context, const char* method,
                                 Answer answer);
  // Authenticates, then refuses: the leader's address in the trailing metadata.
  grpc::ServerUnaryReactor* Refuse(grpc::CallbackServerContext* context, const char* method);

  StoredViews* const views_;
  const LeaderView* const leader_;
  const std::optional<TokenVerifier> tokens_;
};

}  // namespace kvbench::controller
