#include "controller/service/stored_views.h"

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "controller/core/job_table.h"
#include "controller/core/job_views.h"
#include "controller/core/request_views.h"

namespace kvbench::controller {
namespace {

// Every stored job, oldest first (as the leader's table recovers them).
absl::Status LoadAllJobs(Store* store, JobTable* table) {
  std::string token;
  do {
    KV_ASSIGN_OR_RETURN(JobPage page, store->Jobs().ListJobs(JobFilter{}, kMaxJobPageSize, token));
    for (JobRecord& job : page.jobs) table->Add(std::move(job));
    token = page.next_page_token;
  } while (!token.empty());
  return absl::OkStatus();
}

}  // namespace

StoredViews::StoredViews(Store* store, Clock* clock)
    : store_(store),
      schedules_(&store->Schedules(), /*jobs=*/nullptr, clock),
      regressions_(&store->Regressions(), &store->Schedules(), /*jobs=*/nullptr, clock) {}

absl::StatusOr<v1::Job> StoredViews::GetJob(const std::string& job_id) {
  KV_ASSIGN_OR_RETURN(JobRecord record, store_->Jobs().GetJob(job_id));
  JobTable table;
  const JobRecord& job = table.Add(std::move(record));
  v1::Job view = ToJobProto(job, table, store_, /*with_results=*/true);
  std::lock_guard<std::mutex> lock(mu_);
  KV_RETURN_IF_ERROR(regressions_.AttachAnalysis(&view));
  return view;
}

absl::StatusOr<v1::ListJobsResponse> StoredViews::ListJobs(const v1::ListJobsRequest& request) {
  JobTable table;
  KV_RETURN_IF_ERROR(LoadAllJobs(store_, &table));
  return ListJobViews(table, store_, request);
}

absl::StatusOr<v1::ListRequestsResponse> StoredViews::ListRequests(
    const v1::ListRequestsRequest& request) {
  JobTable table;
  absl::StatusOr<JobRecord> record = store_->Jobs().GetJob(request.job_id());
  // Unknown: the leader's view names it (NOT_FOUND) from an empty table.
  if (record.ok()) table.Add(*std::move(record));
  return ListRequestViews(table, store_, request);
}

absl::StatusOr<v1::Schedule> StoredViews::GetSchedule(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  KV_RETURN_IF_ERROR(schedules_.Load());
  return schedules_.Get(name);
}

absl::StatusOr<v1::ListSchedulesResponse> StoredViews::ListSchedules() {
  std::lock_guard<std::mutex> lock(mu_);
  KV_RETURN_IF_ERROR(schedules_.Load());
  v1::ListSchedulesResponse response;
  for (v1::Schedule& schedule : schedules_.List()) *response.add_schedules() = std::move(schedule);
  return response;
}

absl::StatusOr<v1::Baseline> StoredViews::GetBaseline(const v1::GetBaselineRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  return regressions_.GetBaseline(request);
}

absl::StatusOr<v1::ListChangePointsResponse> StoredViews::ListChangePoints(
    const v1::ListChangePointsRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  return regressions_.ListChangePoints(request);
}

absl::StatusOr<v1::ListAlertsResponse> StoredViews::ListAlerts(
    const v1::ListAlertsRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  return regressions_.ListAlerts(request);
}

}  // namespace kvbench::controller
