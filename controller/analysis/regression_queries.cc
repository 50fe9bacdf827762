#include "controller/analysis/regression_queries.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::controller {

absl::Status RegressionQueries::CheckSchedule(const std::string& name) {
  KV_ASSIGN_OR_RETURN(std::vector<v1::Schedule> schedules, schedules_->ListSchedules());
  const bool known =
      std::any_of(schedules.begin(), schedules.end(),
                  [&name](const v1::Schedule& s) { return s.spec().name() == name; });
  if (!known) return absl::NotFoundError(absl::StrCat("no schedule named \"", name, "\""));
  return absl::OkStatus();
}

absl::StatusOr<v1::Baseline> RegressionQueries::SetBaseline(const v1::SetBaselineRequest& request) {
  KV_RETURN_IF_ERROR(CheckSchedule(request.schedule()));
  v1::Baseline baseline;
  baseline.set_schedule(request.schedule());
  if (!request.job_id().empty()) {
    KV_ASSIGN_OR_RETURN(v1::Job job, jobs_->GetJob(request.job_id()));
    const bool any_succeeded =
        std::any_of(job.scenarios().begin(), job.scenarios().end(),
                    [](const auto& s) { return s.state() == v1::SCENARIO_STATE_SUCCEEDED; });
    if (!any_succeeded) {
      return absl::FailedPreconditionError(
          absl::StrCat("job ", job.job_id(), " has no succeeded scenario to compare with (",
                       v1::JobState_Name(job.state()), ")"));
    }
    baseline.set_job_id(job.job_id());
    baseline.set_set_unix_ms(absl::ToUnixMillis(clock_->Now()));
  }
  KV_RETURN_IF_ERROR(regressions_->SetBaseline(baseline));
  return baseline;
}

absl::StatusOr<v1::Baseline> RegressionQueries::GetBaseline(const v1::GetBaselineRequest& request) {
  KV_RETURN_IF_ERROR(CheckSchedule(request.schedule()));
  return regressions_->GetBaseline(request.schedule());
}

absl::StatusOr<v1::ListChangePointsResponse> RegressionQueries::ListChangePoints(
    const v1::ListChangePointsRequest& request) {
  if (!request.schedule().empty()) KV_RETURN_IF_ERROR(CheckSchedule(request.schedule()));
  KV_ASSIGN_OR_RETURN(std::vector<v1::ChangePoint> points,
                      regressions_->ListChangePoints(request.schedule()));
  v1::ListChangePointsResponse response;
  for (v1::ChangePoint& point : points) *response.add_change_points() = std::move(point);
  return response;
}

absl::StatusOr<v1::ListAlertsResponse> RegressionQueries::ListAlerts(
    const v1::ListAlertsRequest& request) {
  const int limit =
      request.limit() <= 0 ? kDefaultAlertsListed : std::min(request.limit(), kMaxAlertsListed);
  KV_ASSIGN_OR_RETURN(std::vector<v1::AlertWithDeliveries> alerts,
                      regressions_->ListAlerts(request.schedule(), request.job_id(), limit));
  v1::ListAlertsResponse response;
  for (v1::AlertWithDeliveries& alert : alerts) *response.add_alerts() = std::move(alert);
  return response;
}

void RegressionQueries::SetWebhooks(std::vector<std::string> names,
                                    std::function<void()> wake_deliveries) {
  webhooks_ = std::move(names);
  wake_deliveries_ = std::move(wake_deliveries);
}

absl::StatusOr<v1::RedeliverAlertsResponse> RegressionQueries::RedeliverAlerts(
    const v1::RedeliverAlertsRequest& request) {
  if (webhooks_.empty()) {
    return absl::FailedPreconditionError("the controller's config has no webhooks to deliver to");
  }
  const std::string& webhook = request.webhook();
  if (!webhook.empty() &&
      std::find(webhooks_.begin(), webhooks_.end(), webhook) == webhooks_.end()) {
    return absl::NotFoundError(absl::StrCat("no webhook named \"", webhook,
                                            "\" in the controller's config (it has ",
                                            absl::StrJoin(webhooks_, ", "), ")"));
  }
  KV_ASSIGN_OR_RETURN(int due,
                      regressions_->RedeliverNow(webhook, request.include_failed(), clock_->Now()));
  KV_LOG(INFO) << "alerts redelivered on request webhook="
               << (webhook.empty() ? std::string("*") : webhook)
               << " include_failed=" << (request.include_failed() ? "true" : "false")
               << " deliveries=" << due;
  if (due > 0 && wake_deliveries_) wake_deliveries_();
  v1::RedeliverAlertsResponse response;
  response.set_deliveries(due);
  return response;
}

absl::Status RegressionQueries::AttachAnalysis(v1::Job* job) {
  KV_ASSIGN_OR_RETURN(std::optional<v1::RunAnalysis> analysis,
                      regressions_->GetAnalysis(job->job_id()));
  if (analysis) *job->mutable_analysis() = *std::move(analysis);
  return absl::OkStatus();
}

}  // namespace kvbench::controller
