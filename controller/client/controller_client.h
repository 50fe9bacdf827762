#pragma once

// The client side of the Controller service (proto/kvbench/v1/controller_service.proto): what
// kvctl, platform tools and tests use to talk to a kv-controller. No gRPC in this header
// (STYLE.md rule 8): GrpcControllerClient is the real implementation behind Connect.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/sync/stop_source.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::client {

// Deadline of each unary call unless the caller sets another.
inline constexpr absl::Duration kDefaultCallDeadline = absl::Seconds(30);

// Where and how to reach a controller.
struct ControllerConnection {
  std::string address;                             // host:port
  std::string token;                               // bearer token ("" = none)
  std::string ca_cert_path;                        // "" = system roots
  bool insecure = false;                           // plaintext (controller in insecure mode)
  absl::Duration deadline = kDefaultCallDeadline;  // per unary call
};

// Every call sends `authorization: Bearer <token>` when a token is set; unary calls carry the
// connection's deadline; gRPC status codes come back as the same absl codes.
class ControllerClient {
 public:
  virtual ~ControllerClient() = default;

  // The gRPC client. INVALID_ARGUMENT when the address is empty; NOT_FOUND /
  // FAILED_PRECONDITION when the CA file cannot be read. Dials lazily: an unreachable controller
  // shows as UNAVAILABLE on the first call.
  static absl::StatusOr<std::unique_ptr<ControllerClient>> Connect(
      const ControllerConnection& connection);

  virtual absl::StatusOr<v1::SubmitJobResponse> SubmitJob(const v1::SubmitJobRequest& request) = 0;
  virtual absl::StatusOr<v1::Job> GetJob(const std::string& job_id) = 0;
  virtual absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& request) = 0;
  virtual absl::StatusOr<v1::Job> CancelJob(const std::string& job_id,
                                            const std::string& reason) = 0;
  virtual absl::StatusOr<v1::ListAgentsResponse> ListAgents() = 0;

  // A page of a job's request records.
  virtual absl::StatusOr<v1::ListRequestsResponse> ListRequests(
      const v1::ListRequestsRequest& request) = 0;

  // Schedules.
  // `replace`: replace the spec of the existing schedule of that name (its history stays).
  virtual absl::StatusOr<v1::Schedule> CreateSchedule(const v1::ScheduleSpec& spec,
                                                      bool replace = false) = 0;
  virtual absl::StatusOr<v1::Schedule> GetSchedule(const std::string& name) = 0;
  virtual absl::StatusOr<v1::ListSchedulesResponse> ListSchedules() = 0;
  virtual absl::StatusOr<v1::Schedule> SetSchedulePaused(const std::string& name, bool paused) = 0;
  virtual absl::Status DeleteSchedule(const std::string& name) = 0;
  virtual absl::StatusOr<v1::ScheduleFire> RunScheduleNow(const std::string& name) = 0;

  // Regressions.
  virtual absl::StatusOr<v1::Baseline> SetBaseline(const v1::SetBaselineRequest& request) = 0;
  virtual absl::StatusOr<v1::Baseline> GetBaseline(const std::string& schedule) = 0;
  virtual absl::StatusOr<v1::ListChangePointsResponse> ListChangePoints(
      const std::string& schedule) = 0;
  virtual absl::StatusOr<v1::ListAlertsResponse> ListAlerts(
      const v1::ListAlertsRequest& request) = 0;
  virtual absl::StatusOr<v1::RedeliverAlertsResponse> RedeliverAlerts(
      const v1::RedeliverAlertsRequest& request) = 0;

  // Blocks until the stream ends (the server ends it when the job is terminal) or on_event
  // returns false or a stop of `cancel` (may be null) is requested. Returns the stream's status:
  // OK when the server ended it or on_event stopped it, CANCELLED when `cancel` was requested.
  virtual absl::Status WatchJob(const v1::WatchJobRequest& request,
                                const std::function<bool(const v1::WatchJobResponse&)>& on_event,
                                StopSource* cancel) = 0;
};

}  // namespace kvbench::client
