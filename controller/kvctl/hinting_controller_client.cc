#include "controller/kvctl/hinting_controller_client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/grpc/leader_hint.h"

namespace kvbench::kvctl {

// Where the README's loopback controller listens (deploy/examples/controller-local.json).
constexpr char kExampleControllerConfig[] = "deploy/examples/controller-local.json";
constexpr char kExampleControllerAddress[] = "127.0.0.1:7070";

absl::Status WithUnreachableControllerHint(const absl::Status& status, const std::string& address) {
  // A controller that answered UNAVAILABLE itself (its store out of reach, a standby with no
  // leader to name) is running: its message says what is wrong.
  if (status.code() != absl::StatusCode::kUnavailable || AnsweredByController(status)) {
    return status;
  }
  return absl::UnavailableError(absl::StrCat(
      "cannot reach the controller at ", address, " (", status.message(),
      "): is kv-controller running there? Start one with `kv-controller --config ",
      kExampleControllerConfig, "` (it listens on ", kExampleControllerAddress,
      ", insecure: KV_INSECURE=1; docs/kv-controller.md), or run the job on this machine "
      "alone with `kvctl run SPEC.json`, which needs no controller"));
}

HintingControllerClient::HintingControllerClient(std::unique_ptr<client::ControllerClient> inner,
                                                 std::string address)
    : inner_(std::move(inner)), address_(std::move(address)) {}

absl::StatusOr<v1::SubmitJobResponse> HintingControllerClient::SubmitJob(
    const v1::SubmitJobRequest& request) {
  return Hinted(inner_->SubmitJob(request));
}

absl::StatusOr<v1::Job> HintingControllerClient::GetJob(const std::string& job_id) {
  return Hinted(inner_->GetJob(job_id));
}

absl::StatusOr<v1::ListJobsResponse> HintingControllerClient::ListJobs(
    const v1::ListJobsRequest& request) {
  return Hinted(inner_->ListJobs(request));
}

absl::StatusOr<v1::Job> HintingControllerClient::CancelJob(const std::string& job_id,
                                                           const std::string& reason) {
  return Hinted(inner_->CancelJob(job_id, reason));
}

absl::StatusOr<v1::ListAgentsResponse> HintingControllerClient::ListAgents() {
  return Hinted(inner_->ListAgents());
}

absl::StatusOr<v1::ListRequestsResponse> HintingControllerClient::ListRequests(
    const v1::ListRequestsRequest& request) {
  return Hinted(inner_->ListRequests(request));
}

absl::StatusOr<v1::Schedule> HintingControllerClient::CreateSchedule(const v1::ScheduleSpec& spec,
                                                                     bool replace) {
  return Hinted(inner_->CreateSchedule(spec, replace));
}

absl::StatusOr<v1::Schedule> HintingControllerClient::GetSchedule(const std::string& name) {
  return Hinted(inner_->GetSchedule(name));
}

absl::StatusOr<v1::ListSchedulesResponse> HintingControllerClient::ListSchedules() {
  return Hinted(inner_->ListSchedules());
}

absl::StatusOr<v1::Schedule> HintingControllerClient::SetSchedulePaused(const std::string& name,
                                                                        bool paused) {
  return Hinted(inner_->SetSchedulePaused(name, paused));
}

absl::Status HintingControllerClient::DeleteSchedule(const std::string& name) {
  return WithUnreachableControllerHint(inner_->DeleteSchedule(name), address_);
}

absl::StatusOr<v1::ScheduleFire> HintingControllerClient::RunScheduleNow(const std::string& name) {
  return Hinted(inner_->RunScheduleNow(name));
}

absl::StatusOr<v1::Baseline> HintingControllerClient::SetBaseline(
    const v1::SetBaselineRequest& request) {
  return Hinted(inner_->SetBaseline(request));
}

absl::StatusOr<v1::Baseline> HintingControllerClient::GetBaseline(const std::string& schedule) {
  return Hinted(inner_->GetBaseline(schedule));
}

absl::StatusOr<v1::ListChangePointsResponse> HintingControllerClient::ListChangePoints(
    const std::string& schedule) {
  return Hinted(inner_->ListChangePoints(schedule));
}

absl::StatusOr<v1::ListAlertsResponse> HintingControllerClient::ListAlerts(
    const v1::ListAlertsRequest& request) {
  return Hinted(inner_->ListAlerts(request));
}

absl::StatusOr<v1::RedeliverAlertsResponse> HintingControllerClient::RedeliverAlerts(
    const v1::RedeliverAlertsRequest& request) {
  return Hinted(inner_->RedeliverAlerts(request));
}

absl::Status HintingControllerClient::WatchJob(
    const v1::WatchJobRequest& request,
    const std::function<bool(const v1::WatchJobResponse&)>& on_event, StopSource* cancel) {
  return inner_->WatchJob(request, on_event, cancel);
}

}  // namespace kvbench::kvctl
