#pragma once

// The durable state of regressions, beside the jobs: each scheduled run's
// analysis (stored once, keyed by the job, with the change points and alerts it raised and a
// pending delivery per alert and webhook, all in one transaction, so a restart neither loses nor
// repeats an alert), pinned baselines, and the delivery state of every alert.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/regression.pb.h"

namespace kvbench::controller {

struct DueDelivery {
  v1::RegressionAlert alert;
  v1::AlertDelivery delivery;
};

class RegressionStore {
 public:
  virtual ~RegressionStore() = default;

  // Stores `analysis`, its new change points and alerts, and for each alert a pending delivery
  // per webhook name (due now), in one transaction. False, and nothing written, when the job was
  // analyzed before.
  virtual absl::StatusOr<bool> RecordAnalysis(const v1::RunAnalysis& analysis,
                                              const std::vector<std::string>& webhooks,
                                              absl::Time now) = 0;
  virtual absl::StatusOr<std::optional<v1::RunAnalysis>> GetAnalysis(const std::string& job_id) = 0;
  // A schedule's change points (every schedule's for ""), in the order they were found.
  virtual absl::StatusOr<std::vector<v1::ChangePoint>> ListChangePoints(
      const std::string& schedule) = 0;
  // Pins `baseline.job_id` for its schedule; an empty job_id unpins.
  virtual absl::Status SetBaseline(const v1::Baseline& baseline) = 0;
  // The pinned baseline (job_id empty when none).
  virtual absl::StatusOr<v1::Baseline> GetBaseline(const std::string& schedule) = 0;
  // Newest first, at most `limit`, filtered by schedule and job when not empty.
  virtual absl::StatusOr<std::vector<v1::AlertWithDeliveries>> ListAlerts(
      const std::string& schedule, const std::string& job_id, int limit) = 0;
  // Pending deliveries to `webhook` (to every webhook for "") due at `now`, soonest first, at
  // most `limit`.
  virtual absl::StatusOr<std::vector<DueDelivery>> DueDeliveries(absl::Time now, int limit,
                                                                 const std::string& webhook) = 0;
  // When the next pending delivery to `webhook` (to any for "") is due; nullopt when none is
  // pending.
  virtual absl::StatusOr<std::optional<absl::Time>> NextDeliveryTime(
      const std::string& webhook) = 0;
  // The webhooks with a pending delivery, by name.
  virtual absl::StatusOr<std::vector<std::string>> PendingWebhooks() = 0;
  // Stores a delivery's new state (keyed by alert and webhook).
  virtual absl::Status UpdateDelivery(const v1::AlertDelivery& delivery) = 0;
  // Makes the pending deliveries of `webhook` (every webhook's for "") due at `now`; with
  // `include_failed`, the failed ones too, pending again with their attempts starting over (the
  // last detail kept until the next attempt). Returns how many, all in one transaction.
  virtual absl::StatusOr<int> RedeliverNow(const std::string& webhook, bool include_failed,
                                           absl::Time now) = 0;
  virtual absl::StatusOr<std::map<v1::DeliveryState, int64_t>> CountDeliveries() = 0;
};

}  // namespace kvbench::controller
