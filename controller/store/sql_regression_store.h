#pragma once

// RegressionStore on the tables analyses, change_points, baselines, alerts and deliveries of a
// SqlDatabase. They are read and written rarely (once per scheduled run, once per delivery
// attempt), so each call prepares the statements it runs.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/store/regression_store.h"
#include "controller/store/sql_database.h"

namespace kvbench::controller {

class SqlRegressionStore : public RegressionStore {
 public:
  // `db` must outlive the store.
  explicit SqlRegressionStore(SqlDatabase* db) : db_(*db) {}

  absl::StatusOr<bool> RecordAnalysis(const v1::RunAnalysis& analysis,
                                      const std::vector<std::string>& webhooks,
                                      absl::Time now) override;
  absl::StatusOr<std::optional<v1::RunAnalysis>> GetAnalysis(const std::string& job_id) override;
  absl::StatusOr<std::vector<v1::ChangePoint>> ListChangePoints(
      const std::string& schedule) override;
  absl::Status SetBaseline(const v1::Baseline& baseline) override;
  absl::StatusOr<v1::Baseline> GetBaseline(const std::string& schedule) override;
  absl::StatusOr<std::vector<v1::AlertWithDeliveries>> ListAlerts(const std::string& schedule,
                                                                  const std::string& job_id,
                                                                  int limit) override;
  absl::StatusOr<std::vector<DueDelivery>> DueDeliveries(absl::Time now, int limit,
                                                         const std::string& webhook) override;
  absl::StatusOr<std::optional<absl::Time>> NextDeliveryTime(const std::string& webhook) override;
  absl::StatusOr<std::vector<std::string>> PendingWebhooks() override;
  absl::Status UpdateDelivery(const v1::AlertDelivery& delivery) override;
  absl::StatusOr<int> RedeliverNow(const std::string& webhook, bool include_failed,
                                   absl::Time now) override;
  absl::StatusOr<std::map<v1::DeliveryState, int64_t>> CountDeliveries() override;

 private:
  SqlDatabase& db_;
};

}  // namespace kvbench::controller
