#include "controller/service/controller_service.h"

#include <memory>
#include <mutex>

#include "common/grpc/grpc_status.h"
#include "common/grpc/leader_hint.h"
#include "common/grpc/stream_write_queue.h"
#include "common/log/logging.h"
#include "controller/service/call_authentication.h"
#include "controller/service/fill_response.h"

namespace kvbench::controller {
namespace {

// WatchJob: the writer reactor and its state on the loop. `Advance` reads the next batch of events
// and writes them one at a time; when caught up it waits for the job's next event.
class WatchReactor : public grpc::ServerWriteReactor<v1::WatchJobResponse> {
 public:
  struct State {
    State()
        : outbox([this](const v1::WatchJobResponse* response) {
            std::lock_guard<std::mutex> lock(mu);
            if (reactor == nullptr || finished) return;
            reactor->StartWrite(response);
          }) {}

    std::mutex mu;
    WatchReactor* reactor = nullptr;  // null after OnDone
    bool finished = false;
    // Loop-thread only:
    StreamWriteQueue<v1::WatchJobResponse> outbox;
    bool done_after_pending = false;
    uint64_t watcher = 0;
    int64_t position = 0;
  };

  WatchReactor(JobManager* manager, Executor* executor, const v1::WatchJobRequest& request)
      : manager_(manager),
        executor_(executor),
        job_id_(request.job_id()),
        state_(std::make_shared<State>()) {
    state_->reactor = this;
    state_->position = request.after_position();
    Kick(/*after_write=*/false);
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      FinishOnce(grpc::Status(grpc::StatusCode::UNAVAILABLE, "write failed"));
      return;
    }
    Kick(/*after_write=*/true);
  }

  void OnCancel() override { FinishOnce(grpc::Status::CANCELLED); }

  void OnDone() override {
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      state_->reactor = nullptr;
    }
    std::shared_ptr<State> state = state_;
    JobManager* manager = manager_;
    executor_->Post("watch.done", [state, manager] {
      if (state->watcher != 0) manager->RemoveWatcher(state->watcher);
      state->watcher = 0;
    });
    delete this;
  }

 private:
  // Continues on the loop thread (after a write completed, when `after_write`).
  void Kick(bool after_write) {
    std::shared_ptr<State> state = state_;
    JobManager* manager = manager_;
    std::string job_id = job_id_;
    Executor* executor = executor_;
    executor_->Post("watch.pump", [state, manager, job_id, executor, after_write] {
      if (after_write) state->outbox.OnWriteDone(/*ok=*/true);
      Advance(state, manager, job_id, executor);
    });
  }

  // On the loop: wait for the write in flight, else read more, else wait for the job's next event.
  // Reading a batch queues it and starts its first write.
  static void Advance(const std::shared_ptr<State>& state, JobManager* manager,
                      const std::string& job_id, Executor* executor) {
    if (state->outbox.writing()) return;
    if (!state->done_after_pending) {
      absl::StatusOr<WatchBatch> batch = manager->WatchEvents(job_id, state->position);
      if (!batch.ok()) {
        FinishCall(state, ToGrpcStatus(batch.status()));
        return;
      }
      for (v1::WatchJobResponse& response : batch->events) {
        state->position = response.position();
        state->outbox.Write(std::move(response));
      }
      state->done_after_pending = batch->job_done;
      if (state->outbox.writing()) return;
      if (!batch->job_done) {
        state->watcher = manager->AddWatcher(job_id, [state, manager, job_id, executor] {
          state->watcher = 0;
          Advance(state, manager, job_id, executor);
        });
        return;
      }
    }
    FinishCall(state, grpc::Status::OK);  // the job has ended and everything was sent
  }

  static void FinishCall(const std::shared_ptr<State>& state, const grpc::Status& status) {
    std::lock_guard<std::mutex> lock(state->mu);
    if (state->reactor == nullptr || state->finished) return;
    state->finished = true;
    state->reactor->Finish(status);
  }

  void FinishOnce(const grpc::Status& status) { FinishCall(state_, status); }

  JobManager* const manager_;
  Executor* const executor_;
  const std::string job_id_;
  std::shared_ptr<State> state_;
};

}  // namespace

ControllerService::ControllerService(JobManager* manager, ScheduleFirer* schedules,
                                     Executor* executor, std::optional<TokenVerifier> tokens,
                                     RegressionQueries* regressions)
    : manager_(manager),
      schedules_(schedules),
      executor_(executor),
      tokens_(std::move(tokens)),
      regressions_(regressions) {}

template <typename Answer>
grpc::ServerUnaryReactor* ControllerService::Unary(grpc::CallbackServerContext* context,
                                                   const char* method, Answer answer) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (absl::Status auth = AuthenticateCall(tokens_, context, method); !auth.ok()) {
    reactor->Finish(ToGrpcStatus(auth));
    return reactor;
  }
  executor_->Post(method, [reactor, context, answer = std::move(answer)]() mutable {
    const absl::Status status = answer();
    MarkAnswered(context, status);
    reactor->Finish(ToGrpcStatus(status));
  });
  return reactor;
}

grpc::ServerUnaryReactor* ControllerService::SubmitJob(grpc::CallbackServerContext* context,
                                                       const v1::SubmitJobRequest* request,
                                                       v1::SubmitJobResponse* response) {
  return Unary(context, "controller.submit_job", [this, request, response]() -> absl::Status {
    absl::StatusOr<v1::SubmitJobResponse> answer = manager_->SubmitJob(*request);
    if (answer.ok()) *response = *std::move(answer);
    return answer.status();
  });
}

grpc::ServerUnaryReactor* ControllerService::GetJob(grpc::CallbackServerContext* context,
                                                    const v1::GetJobRequest* request,
                                                    v1::Job* response) {
  return Unary(context, "controller.get_job", [this, request, response]() -> absl::Status {
    absl::StatusOr<v1::Job> answer = manager_->GetJob(request->job_id());
    if (!answer.ok()) return answer.status();
    *response = *std::move(answer);
    return regressions_ == nullptr ? absl::OkStatus() : regressions_->AttachAnalysis(response);
  });
}

grpc::ServerUnaryReactor* ControllerService::ListJobs(grpc::CallbackServerContext* context,
                                                      const v1::ListJobsRequest* request,
                                                      v1::ListJobsResponse* response) {
  return Unary(context, "controller.list_jobs", [this, request, response]() -> absl::Status {
    absl::StatusOr<v1::ListJobsResponse> answer = manager_->ListJobs(*request);
    if (answer.ok()) *response = *std::move(answer);
    return answer.status();
  });
}

grpc::ServerUnaryReactor* ControllerService::CancelJob(grpc::CallbackServerContext* context,
                                                       const v1::CancelJobRequest* request,
                                                       v1::Job* response) {
  return Unary(context, "controller.cancel_job", [this, request, response]() -> absl::Status {
    absl::StatusOr<v1::Job> answer = manager_->CancelJob(*request);
    if (answer.ok()) *response = *std::move(answer);
    return answer.status();
  });
}

grpc::ServerUnaryReactor* ControllerService::ListAgents(grpc::CallbackServerContext* context,
                                                        const v1::ListAgentsRequest*,
                                                        v1::ListAgentsResponse* response) {
  return Unary(context, "controller.list_agents", [this, response]() -> absl::Status {
    *response = manager_->ListAgents();
    return absl::OkStatus();
  });
}

grpc::ServerWriteReactor<v1::WatchJobResponse>* ControllerService::WatchJob(
    grpc::CallbackServerContext* context, const v1::WatchJobRequest* request) {
  if (absl::Status auth = AuthenticateCall(tokens_, context, "controller.watch_job"); !auth.ok()) {
    class Refused : public grpc::ServerWriteReactor<v1::WatchJobResponse> {
     public:
      explicit Refused(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
      void OnDone() override { delete this; }
    };
    return new Refused(auth);
  }
  return new WatchReactor(manager_, executor_, *request);
}

// --- Schedules

grpc::ServerUnaryReactor* ControllerService::ListRequests(grpc::CallbackServerContext* context,
                                                          const v1::ListRequestsRequest* request,
                                                          v1::ListRequestsResponse* response) {
  return Unary(context, "controller.list_requests", [this, request, response] {
    return FillResponse(response, manager_->ListRequests(*request));
  });
}

grpc::ServerUnaryReactor* ControllerService::CreateSchedule(
    grpc::CallbackServerContext* context, const v1::CreateScheduleRequest* request,
    v1::Schedule* response) {
  return Unary(context, "controller.create_schedule", [this, request, response] {
    return FillResponse(response, request->replace() ? schedules_->Replace(request->spec())
                                                     : schedules_->Create(request->spec()));
  });
}

grpc::ServerUnaryReactor* ControllerService::GetSchedule(grpc::CallbackServerContext* context,
                                                         const v1::GetScheduleRequest* request,
                                                         v1::Schedule* response) {
  return Unary(context, "controller.get_schedule", [this, request, response] {
    return FillResponse(response, schedules_->Get(request->name()));
  });
}

grpc::ServerUnaryReactor* ControllerService::ListSchedules(grpc::CallbackServerContext* context,
                                                           const v1::ListSchedulesRequest*,
                                                           v1::ListSchedulesResponse* response) {
  return Unary(context, "controller.list_schedules", [this, response]() -> absl::Status {
    for (v1::Schedule& schedule : schedules_->List())
      *response->add_schedules() = std::move(schedule);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* ControllerService::SetSchedulePaused(
    grpc::CallbackServerContext* context, const v1::SetSchedulePausedRequest* request,
    v1::Schedule* response) {
  return Unary(context, "controller.set_schedule_paused", [this, request, response] {
    return FillResponse(response, schedules_->SetPaused(request->name(), request->paused()));
  });
}

grpc::ServerUnaryReactor* ControllerService::DeleteSchedule(
    grpc::CallbackServerContext* context, const v1::DeleteScheduleRequest* request,
    v1::DeleteScheduleResponse*) {
  return Unary(context, "controller.delete_schedule",
               [this, request]() -> absl::Status { return schedules_->Delete(request->name()); });
}

grpc::ServerUnaryReactor* ControllerService::RunScheduleNow(
    grpc::CallbackServerContext* context, const v1::RunScheduleNowRequest* request,
    v1::ScheduleFire* response) {
  return Unary(context, "controller.run_schedule_now", [this, request, response] {
    return FillResponse(response, schedules_->RunNow(request->name()));
  });
}

grpc::ServerUnaryReactor* ControllerService::SetBaseline(grpc::CallbackServerContext* context,
                                                         const v1::SetBaselineRequest* request,
                                                         v1::Baseline* response) {
  return Unary(context, "controller.set_baseline", [this, request, response]() -> absl::Status {
    if (regressions_ == nullptr) return absl::UnimplementedError("no regression analysis here");
    return FillResponse(response, regressions_->SetBaseline(*request));
  });
}

grpc::ServerUnaryReactor* ControllerService::GetBaseline(grpc::CallbackServerContext* context,
                                                         const v1::GetBaselineRequest* request,
                                                         v1::Baseline* response) {
  return Unary(context, "controller.get_baseline", [this, request, response]() -> absl::Status {
    if (regressions_ == nullptr) return absl::UnimplementedError("no regression analysis here");
    return FillResponse(response, regressions_->GetBaseline(*request));
  });
}

grpc::ServerUnaryReactor* ControllerService::ListChangePoints(
    grpc::CallbackServerContext* context, const v1::ListChangePointsRequest* request,
    v1::ListChangePointsResponse* response) {
  return Unary(context, "controller.list_change_points",
               [this, request, response]() -> absl::Status {
                 if (regressions_ == nullptr) {
                   return absl::UnimplementedError("no regression analysis here");
                 }
                 return FillResponse(response, regressions_->ListChangePoints(*request));
               });
}

grpc::ServerUnaryReactor* ControllerService::ListAlerts(grpc::CallbackServerContext* context,
                                                        const v1::ListAlertsRequest* request,
                                                        v1::ListAlertsResponse* response) {
  return Unary(context, "controller.list_alerts", [this, request, response]() -> absl::Status {
    if (regressions_ == nullptr) return absl::UnimplementedError("no regression analysis here");
    return FillResponse(response, regressions_->ListAlerts(*request));
  });
}

grpc::ServerUnaryReactor* ControllerService::RedeliverAlerts(
    grpc::CallbackServerContext* context, const v1::RedeliverAlertsRequest* request,
    v1::RedeliverAlertsResponse* response) {
  return Unary(context, "controller.redeliver_alerts", [this, request, response]() -> absl::Status {
    if (regressions_ == nullptr) {
      return absl::UnimplementedError("no regression analysis here");
    }
    return FillResponse(response, regressions_->RedeliverAlerts(*request));
  });
}

}  // namespace kvbench::controller
