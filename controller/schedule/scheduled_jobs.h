#pragma once

// What schedules need of the job side: submit (idempotent by request_id), find a schedule's jobs
// by label and state, cancel. The controller's JobManager answers through an adapter; tests use a
// recording fake.

#include "absl/status/statusor.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::controller {

class ScheduledJobs {
 public:
  virtual ~ScheduledJobs() = default;
  virtual absl::StatusOr<v1::SubmitJobResponse> SubmitJob(const v1::SubmitJobRequest& request) = 0;
  virtual absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& request) = 0;
  virtual absl::StatusOr<v1::Job> CancelJob(const v1::CancelJobRequest& request) = 0;
};

}  // namespace kvbench::controller
