#pragma once

#include <grpcpp/grpcpp.h>

#include <optional>

#include "common/auth/token_verifier.h"
#include "common/loop/executor.h"
#include "controller/analysis/regression_queries.h"
#include "controller/core/job_manager.h"
#include "controller/schedule/schedule_firer.h"
#include "kvbench/v1/controller_service.grpc.pb.h"

namespace kvbench::controller {

// The Controller service over gRPC's callback API: each call is checked for a bearer token
// (unless `tokens` is empty: insecure mode), handed to the executor's thread, answered by the
// JobManager (jobs) or the ScheduleFirer (schedules), and finished from there. WatchJob streams a
// job's stored events from a position, one write in flight, waking on new events, and ends when the
// job has ended.
class ControllerService final : public v1::Controller::CallbackService {
 public:
  // `tokens` nullopt = insecure mode: calls need no token.
  // `regressions` may be null (no regression RPCs: UNIMPLEMENTED).
  ControllerService(JobManager* manager, ScheduleFirer* schedules, Executor* executor,
                    std::optional<TokenVerifier> tokens, RegressionQueries* regressions = nullptr);

  grpc::ServerUnaryReactor* SubmitJob(grpc::CallbackServerContext* context,
                                      const v1::SubmitJobRequest* request,
                                      v1::SubmitJobResponse* response) override;
  grpc::ServerUnaryReactor* GetJob(grpc::CallbackServerContext* context,
                                   const v1::GetJobRequest* request, v1::Job* response) override;
  grpc::ServerUnaryReactor* ListJobs(grpc::CallbackServerContext* context,
                                     const v1::ListJobsRequest* request,
                                     v1::ListJobsResponse* response) override;
  grpc::ServerUnaryReactor* CancelJob(grpc::CallbackServerContext* context,
                                      const v1::CancelJobRequest* request,
                                      v1::Job* response) override;
  grpc::ServerUnaryReactor* ListAgents(grpc::CallbackServerContext* context,
                                       const v1::ListAgentsRequest* request,
                                       v1::ListAgentsResponse* response) override;
  grpc::ServerWriteReactor<v1::WatchJobResponse>* WatchJob(
      grpc::CallbackServerContext* context, const v1::WatchJobRequest* request) override;

  grpc::ServerUnaryReactor* ListRequests(grpc::CallbackServerContext* context,
                                         const v1::ListRequestsRequest* request,
                                         v1::ListRequestsResponse* response) override;

  // Schedules, answered by the ScheduleFirer.
  grpc::ServerUnaryReactor* CreateSchedule(grpc::CallbackServerContext* context,
                                           const v1::CreateScheduleRequest* request,
                                           v1::Schedule* response) override;
  grpc::ServerUnaryReactor* GetSchedule(grpc::CallbackServerContext* context,
                                        const v1::GetScheduleRequest* request,
                                        v1::Schedule* response) override;
  grpc::ServerUnaryReactor* ListSchedules(grpc::CallbackServerContext* context,
                                          const v1::ListSchedulesRequest* request,
                                          v1::ListSchedulesResponse* response) override;
  grpc::ServerUnaryReactor* SetSchedulePaused(grpc::CallbackServerContext* context,
                                              const v1::SetSchedulePausedRequest* request,
                                              v1::Schedule* response) override;
  grpc::ServerUnaryReactor* DeleteSchedule(grpc::CallbackServerContext* context,
                                           const v1::DeleteScheduleRequest* request,
                                           v1::DeleteScheduleResponse* response) override;
  grpc::ServerUnaryReactor* RunScheduleNow(grpc::CallbackServerContext* context,
                                           const v1::RunScheduleNowRequest* request,
                                           v1::ScheduleFire* response) override;
  // Regressions, answered by RegressionQueries.
  grpc::ServerUnaryReactor* SetBaseline(grpc::CallbackServerContext* context,
                                        const v1::SetBaselineRequest* request,
                                        v1::Baseline* response) override;
  grpc::ServerUnaryReactor* GetBaseline(grpc::CallbackServerContext* context,
                                        const v1::GetBaselineRequest* request,
                                        v1::Baseline* response) override;
  grpc::ServerUnaryReactor* ListChangePoints(grpc::CallbackServerContext* context,
                                             const v1::ListChangePointsRequest* request,
                                             v1::ListChangePointsResponse* response) override;
  grpc::ServerUnaryReactor* ListAlerts(grpc::CallbackServerContext* context,
                                       const v1::ListAlertsRequest* request,
                                       v1::ListAlertsResponse* response) override;
  grpc::ServerUnaryReactor* RedeliverAlerts(grpc::CallbackServerContext* context,
                                            const v1::RedeliverAlertsRequest* request,
                                            v1::RedeliverAlertsResponse* response) override;

 private:
  // Runs `answer` on the loop (after authentication) and finishes the call with its status.
  template <typename Answer>
  grpc::ServerUnaryReactor* Unary(grpc::CallbackServerContext* context, const char* method,
                                  Answer answer);

  JobManager* const manager_;
  ScheduleFirer* const schedules_;
  Executor* const executor_;
  const std::optional<TokenVerifier> tokens_;
  RegressionQueries* const regressions_;
};

}  // namespace kvbench::controller
