#pragma once

// What kvctl and schedulers ask of regressions, answered on the loop: pinned
// baselines, change points, alerts with their delivery states, and a job's analysis. Checks
// what it is given: a baseline must name a schedule and a job that succeeded at least in part.

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/time/clock.h"
#include "controller/core/job_manager.h"
#include "controller/store/regression_store.h"
#include "controller/store/schedule_store.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::controller {

// Alerts ListAlerts returns by default, and at most.
inline constexpr int kDefaultAlertsListed = 50;
inline constexpr int kMaxAlertsListed = 1000;

class RegressionQueries {
 public:
  // Borrowed.
  RegressionQueries(RegressionStore* regressions, ScheduleStore* schedules, JobManager* jobs,
                    Clock* clock)
      : regressions_(regressions), schedules_(schedules), jobs_(jobs), clock_(clock) {}

  // NOT_FOUND for an unknown schedule or job; FAILED_PRECONDITION for a job none of whose
  // scenarios succeeded (nothing to compare with).
  absl::StatusOr<v1::Baseline> SetBaseline(const v1::SetBaselineRequest& request);
  absl::StatusOr<v1::Baseline> GetBaseline(const v1::GetBaselineRequest& request);
  absl::StatusOr<v1::ListChangePointsResponse> ListChangePoints(
      const v1::ListChangePointsRequest& request);
  absl::StatusOr<v1::ListAlertsResponse> ListAlerts(const v1::ListAlertsRequest& request);
  // FAILED_PRECONDITION without webhooks, NOT_FOUND for a webhook not in the config; wakes the
  // deliveries' worker when any were made due.
  absl::StatusOr<v1::RedeliverAlertsResponse> RedeliverAlerts(
      const v1::RedeliverAlertsRequest& request);
  // The configured webhooks' names, and what wakes their deliveries' worker (called on the loop).
  void SetWebhooks(std::vector<std::string> names, std::function<void()> wake_deliveries);
  // Sets job->analysis when the job has one.
  absl::Status AttachAnalysis(v1::Job* job);

 private:
  absl::Status CheckSchedule(const std::string& name);

  RegressionStore* const regressions_;
  ScheduleStore* const schedules_;
  JobManager* const jobs_;
  Clock* const clock_;
  std::vector<std::string> webhooks_;
  std::function<void()> wake_deliveries_;
};

}  // namespace kvbench::controller
