#pragma once

// A ControllerClient that says what to do when the controller cannot be reached: every unary
// call's UNAVAILABLE (connection refused, no such host, a controller shutting down) gets the
// address and the two ways out, starting a kv-controller or running the job alone with
// `kvctl run` (gRPC's own "failed to connect to all addresses" says neither). Every remote kvctl
// command gets its client through ConnectController, which wraps the real one in this. The code
// stays UNAVAILABLE (exit 4).

#include <functional>
#include <memory>
#include <string>

#include "controller/client/controller_client.h"

namespace kvbench::kvctl {

// `status` with the hint appended when it is UNAVAILABLE; any other status as it is. Pure.
absl::Status WithUnreachableControllerHint(const absl::Status& status, const std::string& address);

class HintingControllerClient final : public client::ControllerClient {
 public:
  // `address`: where `inner` dials (host:port), named in the hint.
  HintingControllerClient(std::unique_ptr<client::ControllerClient> inner, std::string address);

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
  // As it is: a watch follows a job the controller was reached for, and resumes on its own.
  absl::Status WatchJob(const v1::WatchJobRequest& request,
                        const std::function<bool(const v1::WatchJobResponse&)>& on_event,
                        StopSource* cancel) override;

 private:
  template <typename T>
  absl::StatusOr<T> Hinted(absl::StatusOr<T> result) const {
    if (result.ok()) return result;
    return WithUnreachableControllerHint(result.status(), address_);
  }

  std::unique_ptr<client::ControllerClient> inner_;
  std::string address_;
};

}  // namespace kvbench::kvctl
