#pragma once

// A Controller gRPC service in the test process (insecure, 127.0.0.1, port 0) that records what
// it is asked, with the callers' metadata, and answers from canned replies set by the test.

#include <grpcpp/server.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "kvbench/v1/controller_service.grpc.pb.h"

namespace kvbench::testing {

class FakeController final : public v1::Controller::Service {
 public:
  // One WatchJob call's answer: these responses, then `end`; `job_when_done` (when set) becomes
  // GetJob's answer for its id just before the stream ends. With `hold_open` the stream stays
  // open after the responses until the client cancels it (10 s at most).
  struct WatchScript {
    std::vector<v1::WatchJobResponse> responses;
    grpc::Status end = grpc::Status::OK;
    std::optional<v1::Job> job_when_done;
    bool hold_open = false;
  };

  FakeController();
  ~FakeController() override;

  // "127.0.0.1:<port>".
  const std::string& address() const { return address_; }

  // --- canned answers
  void SetJob(const v1::Job& job);  // GetJob by id; unknown ids are NOT_FOUND
  void SetSubmitResponse(const v1::SubmitJobResponse& response);
  // ListJobs answers by page_token; an unknown token is INVALID_ARGUMENT.
  void SetListJobsPage(const std::string& page_token, const v1::ListJobsResponse& response);
  void SetAgents(const v1::ListAgentsResponse& response);
  // Every unary call fails with this (OK = answer normally).
  void SetUnaryError(const grpc::Status& status);
  // GetJob answers only once the client gives up (cancel or deadline; 10 s at most).
  void SetHoldGetJob(bool hold);
  // WatchJob calls take the scripts in order; with none left a call is UNAVAILABLE.
  void AddWatchScript(WatchScript script);

  // --- what was asked
  std::vector<std::string> authorizations() const;  // one per call, "" when absent
  std::vector<v1::SubmitJobRequest> submits() const;
  std::vector<v1::ListJobsRequest> list_requests() const;
  std::vector<v1::CancelJobRequest> cancels() const;
  std::vector<v1::WatchJobRequest> watches() const;
  // Streams the client cancelled (seen while writing or while held open).
  int cancelled_watches() const;

  grpc::Status SubmitJob(grpc::ServerContext* context, const v1::SubmitJobRequest* request,
                         v1::SubmitJobResponse* response) override;
  grpc::Status GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                      v1::Job* response) override;
  grpc::Status ListJobs(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                        v1::ListJobsResponse* response) override;
  grpc::Status CancelJob(grpc::ServerContext* context, const v1::CancelJobRequest* request,
                         v1::Job* response) override;
  grpc::Status WatchJob(grpc::ServerContext* context, const v1::WatchJobRequest* request,
                        grpc::ServerWriter<v1::WatchJobResponse>* writer) override;
  grpc::Status ListAgents(grpc::ServerContext* context, const v1::ListAgentsRequest* request,
                          v1::ListAgentsResponse* response) override;

 private:
  // Records the call's authorization; the unary error when one is set.
  grpc::Status Record(grpc::ServerContext* context, bool unary);

  mutable absl::Mutex mutex_;
  std::map<std::string, v1::Job> jobs_ ABSL_GUARDED_BY(mutex_);
  v1::SubmitJobResponse submit_response_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, v1::ListJobsResponse> pages_ ABSL_GUARDED_BY(mutex_);
  v1::ListAgentsResponse agents_ ABSL_GUARDED_BY(mutex_);
  grpc::Status unary_error_ ABSL_GUARDED_BY(mutex_) = grpc::Status::OK;
  bool hold_get_job_ ABSL_GUARDED_BY(mutex_) = false;
  std::vector<WatchScript> watch_scripts_ ABSL_GUARDED_BY(mutex_);
  size_t next_watch_script_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<std::string> authorizations_ ABSL_GUARDED_BY(mutex_);
  std::vector<v1::SubmitJobRequest> submits_ ABSL_GUARDED_BY(mutex_);
  std::vector<v1::ListJobsRequest> list_requests_ ABSL_GUARDED_BY(mutex_);
  std::vector<v1::CancelJobRequest> cancels_ ABSL_GUARDED_BY(mutex_);
  std::vector<v1::WatchJobRequest> watches_ ABSL_GUARDED_BY(mutex_);
  int cancelled_watches_ ABSL_GUARDED_BY(mutex_) = 0;

  std::unique_ptr<grpc::Server> server_;  // last: stops first
  std::string address_;
};

}  // namespace kvbench::testing
