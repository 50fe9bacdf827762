#pragma once

// What a standby controller answers from the store alone: jobs, request records, schedules,
// baselines, change points and alerts, as the leader last wrote them (read on each call: a
// standby keeps nothing in memory). The views are the leader's own (ToJobProto, ListJobViews,
// ListRequestViews, ScheduleFirer's, RegressionQueries'), so a client sees the same fields from
// either, except what only the leader's memory holds: a running scenario's latest progress, and
// the agents' connections (ListAgents and WatchJob go to the leader). Safe from any thread.

#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "common/time/clock.h"
#include "controller/analysis/regression_queries.h"
#include "controller/schedule/schedule_firer.h"
#include "controller/store/store.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::controller {

class StoredViews {
 public:
  // Borrowed; `store` must be safe to call from any thread (SqlStore is).
  StoredViews(Store* store, Clock* clock);

  absl::StatusOr<v1::Job> GetJob(const std::string& job_id);
  absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& request);
  absl::StatusOr<v1::ListRequestsResponse> ListRequests(const v1::ListRequestsRequest& request);
  absl::StatusOr<v1::Schedule> GetSchedule(const std::string& name);
  absl::StatusOr<v1::ListSchedulesResponse> ListSchedules();
  absl::StatusOr<v1::Baseline> GetBaseline(const v1::GetBaselineRequest& request);
  absl::StatusOr<v1::ListChangePointsResponse> ListChangePoints(
      const v1::ListChangePointsRequest& request);
  absl::StatusOr<v1::ListAlertsResponse> ListAlerts(const v1::ListAlertsRequest& request);

 private:
  Store* const store_;
  std::mutex mu_;  // the two below keep state between calls
  ScheduleFirer schedules_;
  RegressionQueries regressions_;
};

}  // namespace kvbench::controller
