#include "tests/component/controller/kvctl/fake_controller.h"

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "tests/support/wait_for.h"

namespace kvbench::testing {

FakeController::FakeController() {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(this);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port == 0) {
    std::cerr << "FakeController: cannot listen on 127.0.0.1\n";
    std::abort();
  }
  address_ = "127.0.0.1:" + std::to_string(port);
}

FakeController::~FakeController() {
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  server_->Wait();
}

void FakeController::SetJob(const v1::Job& job) {
  absl::MutexLock lock(&mutex_);
  jobs_[job.job_id()] = job;
}

void FakeController::SetSubmitResponse(const v1::SubmitJobResponse& response) {
  absl::MutexLock lock(&mutex_);
  submit_response_ = response;
}

void FakeController::SetListJobsPage(const std::string& page_token,
                                     const v1::ListJobsResponse& response) {
  absl::MutexLock lock(&mutex_);
  pages_[page_token] = response;
}

void FakeController::SetAgents(const v1::ListAgentsResponse& response) {
  absl::MutexLock lock(&mutex_);
  agents_ = response;
}

void FakeController::SetUnaryError(const grpc::Status& status) {
  absl::MutexLock lock(&mutex_);
  unary_error_ = status;
}

void FakeController::SetHoldGetJob(bool hold) {
  absl::MutexLock lock(&mutex_);
  hold_get_job_ = hold;
}

void FakeController::AddWatchScript(WatchScript script) {
  absl::MutexLock lock(&mutex_);
  watch_scripts_.push_back(std::move(script));
}

std::vector<std::string> FakeController::authorizations() const {
  absl::MutexLock lock(&mutex_);
  return authorizations_;
}

std::vector<v1::SubmitJobRequest> FakeController::submits() const {
  absl::MutexLock lock(&mutex_);
  return submits_;
}

std::vector<v1::ListJobsRequest> FakeController::list_requests() const {
  absl::MutexLock lock(&mutex_);
  return list_requests_;
}

std::vector<v1::CancelJobRequest> FakeController::cancels() const {
  absl::MutexLock lock(&mutex_);
  return cancels_;
}

std::vector<v1::WatchJobRequest> FakeController::watches() const {
  absl::MutexLock lock(&mutex_);
  return watches_;
}

int FakeController::cancelled_watches() const {
  absl::MutexLock lock(&mutex_);
  return cancelled_watches_;
}

grpc::Status FakeController::Record(grpc::ServerContext* context, bool unary) {
  std::string authorization;
  auto it = context->client_metadata().find("authorization");
  if (it != context->client_metadata().end()) {
    authorization.assign(it->second.data(), it->second.size());
  }
  absl::MutexLock lock(&mutex_);
  authorizations_.push_back(authorization);
  return unary ? unary_error_ : grpc::Status::OK;
}

grpc::Status FakeController::SubmitJob(grpc::ServerContext* context,
                                       const v1::SubmitJobRequest* request,
                                       v1::SubmitJobResponse* response) {
  if (grpc::Status status = Record(context, true); !status.ok()) return status;
  absl::MutexLock lock(&mutex_);
  submits_.push_back(*request);
  *response = submit_response_;
  return grpc::Status::OK;
}

grpc::Status FakeController::GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                                    v1::Job* response) {
  if (grpc::Status status = Record(context, true); !status.ok()) return status;
  bool hold = false;
  {
    absl::MutexLock lock(&mutex_);
    hold = hold_get_job_;
  }
  if (hold) {
    WaitFor([context] { return context->IsCancelled(); });
    return grpc::Status(grpc::StatusCode::CANCELLED, "client gave up");
  }
  absl::MutexLock lock(&mutex_);
  auto it = jobs_.find(request->job_id());
  if (it == jobs_.end()) return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such job");
  *response = it->second;
  return grpc::Status::OK;
}

grpc::Status FakeController::ListJobs(grpc::ServerContext* context,
                                      const v1::ListJobsRequest* request,
                                      v1::ListJobsResponse* response) {
  if (grpc::Status status = Record(context, true); !status.ok()) return status;
  absl::MutexLock lock(&mutex_);
  list_requests_.push_back(*request);
  auto it = pages_.find(request->page_token());
  if (it == pages_.end()) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad token");
  *response = it->second;
  return grpc::Status::OK;
}

grpc::Status FakeController::CancelJob(grpc::ServerContext* context,
                                       const v1::CancelJobRequest* request, v1::Job* response) {
  if (grpc::Status status = Record(context, true); !status.ok()) return status;
  absl::MutexLock lock(&mutex_);
  cancels_.push_back(*request);
  auto it = jobs_.find(request->job_id());
  if (it == jobs_.end()) return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such job");
  it->second.set_state(v1::JOB_STATE_CANCELLED);
  *response = it->second;
  return grpc::Status::OK;
}

grpc::Status FakeController::WatchJob(grpc::ServerContext* context,
                                      const v1::WatchJobRequest* request,
                                      grpc::ServerWriter<v1::WatchJobResponse>* writer) {
  Record(context, false);
  WatchScript script;
  {
    absl::MutexLock lock(&mutex_);
    watches_.push_back(*request);
    if (next_watch_script_ >= watch_scripts_.size()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no watch script left");
    }
    script = watch_scripts_[next_watch_script_++];
  }
  for (const v1::WatchJobResponse& response : script.responses) {
    if (!writer->Write(response)) {
      absl::MutexLock lock(&mutex_);
      ++cancelled_watches_;
      return grpc::Status(grpc::StatusCode::CANCELLED, "gone");
    }
  }
  if (script.hold_open) {
    if (WaitFor([context] { return context->IsCancelled(); })) {
      absl::MutexLock lock(&mutex_);
      ++cancelled_watches_;
    }
    return grpc::Status(grpc::StatusCode::CANCELLED, "client cancelled");
  }
  if (script.job_when_done.has_value()) SetJob(*script.job_when_done);
  return script.end;
}

grpc::Status FakeController::ListAgents(grpc::ServerContext* context,
                                        const v1::ListAgentsRequest* /*request*/,
                                        v1::ListAgentsResponse* response) {
  if (grpc::Status status = Record(context, true); !status.ok()) return status;
  absl::MutexLock lock(&mutex_);
  *response = agents_;
  return grpc::Status::OK;
}

}  // namespace kvbench::testing
