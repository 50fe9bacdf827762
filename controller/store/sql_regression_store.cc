#include "controller/store/sql_regression_store.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "controller/store/sql_blob.h"

namespace kvbench::controller {

using store_internal::ParseBlob;

namespace {

constexpr char kInsertAnalysis[] =
    "INSERT INTO analyses (job_id, schedule, analysis, analyzed_unix_ms) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT (job_id) DO NOTHING";
constexpr char kSelectAnalysis[] = "SELECT analysis FROM analyses WHERE job_id = ?1";
constexpr char kInsertChangePoint[] =
    "INSERT INTO change_points (schedule, job_id, change_point) VALUES (?1, ?2, ?3)";
constexpr char kSelectChangePoints[] =
    "SELECT change_point FROM change_points WHERE (?1 = '' OR schedule = ?1) ORDER BY position";
constexpr char kUpsertBaseline[] =
    "INSERT INTO baselines (schedule, baseline) VALUES (?1, ?2) "
    "ON CONFLICT (schedule) DO UPDATE SET baseline = excluded.baseline";
constexpr char kDeleteBaseline[] = "DELETE FROM baselines WHERE schedule = ?1";
constexpr char kSelectBaseline[] = "SELECT baseline FROM baselines WHERE schedule = ?1";
constexpr char kInsertAlert[] =
    "INSERT INTO alerts (alert_id, schedule, job_id, alert) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT (alert_id) DO NOTHING";
constexpr char kSelectAlerts[] =
    "SELECT alert FROM alerts WHERE (?1 = '' OR schedule = ?1) AND (?2 = '' OR job_id = ?2) "
    "ORDER BY position DESC LIMIT ?3";
constexpr char kUpsertDelivery[] =
    "INSERT INTO deliveries (alert_id, webhook, state, next_attempt_unix_ms, delivery) "
    "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (alert_id, webhook) DO UPDATE SET "
    "state = excluded.state, next_attempt_unix_ms = excluded.next_attempt_unix_ms, "
    "delivery = excluded.delivery";
constexpr char kSelectDeliveriesOfAlert[] =
    "SELECT delivery FROM deliveries WHERE alert_id = ?1 ORDER BY webhook";
constexpr char kSelectDueDeliveries[] =
    "SELECT d.delivery, a.alert FROM deliveries d JOIN alerts a ON a.alert_id = d.alert_id "
    "WHERE d.state = ?1 AND d.next_attempt_unix_ms <= ?2 AND (?4 = '' OR d.webhook = ?4) "
    "ORDER BY d.next_attempt_unix_ms LIMIT ?3";
constexpr char kSelectNextDelivery[] =
    "SELECT MIN(next_attempt_unix_ms) FROM deliveries WHERE state = ?1 AND (?2 = '' OR webhook = "
    "?2)";
constexpr char kSelectPendingWebhooks[] =
    "SELECT DISTINCT webhook FROM deliveries WHERE state = ?1 ORDER BY webhook";
constexpr char kSelectUndelivered[] =
    "SELECT delivery FROM deliveries WHERE (?1 = '' OR webhook = ?1) AND (state = ?2 OR state = "
    "?3)";
constexpr char kCountDeliveries[] = "SELECT state, COUNT(*) FROM deliveries GROUP BY state";

void BindDelivery(SqlStatement& statement, const v1::AlertDelivery& delivery) {
  statement.BindText(1, delivery.alert_id());
  statement.BindText(2, delivery.webhook());
  statement.BindInt(3, delivery.state());
  statement.BindInt(4, delivery.next_attempt_unix_ms());
  statement.BindBlob(5, delivery.SerializeAsString());
}

}  // namespace

absl::StatusOr<bool> SqlRegressionStore::RecordAnalysis(const v1::RunAnalysis& analysis,
                                                        const std::vector<std::string>& webhooks,
                                                        absl::Time now) {
  absl::MutexLock lock(&db_.mu());
  bool recorded = false;
  const absl::Status written = db_.InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(
                                                     db_.mu()) -> absl::Status {
    KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> insert, db_.PrepareOnce(kInsertAnalysis));
    insert->BindText(1, analysis.job_id());
    insert->BindText(2, analysis.schedule());
    insert->BindBlob(3, analysis.SerializeAsString());
    insert->BindInt(4, analysis.analyzed_unix_ms());
    KV_RETURN_IF_ERROR(insert->Run());
    if (db_.Changes() == 0) return absl::OkStatus();  // analyzed before
    recorded = true;
    KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> point, db_.PrepareOnce(kInsertChangePoint));
    for (const v1::ChangePoint& change_point : analysis.new_change_points()) {
      point->Reset();
      point->BindText(1, change_point.schedule());
      point->BindText(2, change_point.job_id());
      point->BindBlob(3, change_point.SerializeAsString());
      KV_RETURN_IF_ERROR(point->Run());
    }
    KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> alert, db_.PrepareOnce(kInsertAlert));
    KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> delivery, db_.PrepareOnce(kUpsertDelivery));
    for (const v1::RegressionAlert& each : analysis.alerts()) {
      alert->Reset();
      alert->BindText(1, each.alert_id());
      alert->BindText(2, each.schedule());
      alert->BindText(3, each.job_id());
      alert->BindBlob(4, each.SerializeAsString());
      KV_RETURN_IF_ERROR(alert->Run());
      for (const std::string& webhook : webhooks) {
        v1::AlertDelivery pending;
        pending.set_alert_id(each.alert_id());
        pending.set_webhook(webhook);
        pending.set_state(v1::DELIVERY_PENDING);
        pending.set_next_attempt_unix_ms(absl::ToUnixMillis(now));
        delivery->Reset();
        BindDelivery(*delivery, pending);
        KV_RETURN_IF_ERROR(delivery->Run());
      }
    }
    return absl::OkStatus();
  });
  if (!written.ok()) return written;
  return recorded;
}

absl::StatusOr<std::optional<v1::RunAnalysis>> SqlRegressionStore::GetAnalysis(
    const std::string& job_id) {
  absl::MutexLock lock(&db_.mu());
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> select, db_.PrepareOnce(kSelectAnalysis));
  select->BindText(1, job_id);
  KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
  if (!has_row) return std::optional<v1::RunAnalysis>();
  v1::RunAnalysis analysis;
  KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(0), analysis, db_.Where("analyses")));
  return std::optional<v1::RunAnalysis>(std::move(analysis));
}

absl::StatusOr<std::vector<v1::ChangePoint>> SqlRegressionStore::ListChangePoints(
    const std::string& schedule) {
  absl::MutexLock lock(&db_.mu());
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> select, db_.PrepareOnce(kSelectChangePoints));
  select->BindText(1, schedule);
  std::vector<v1::ChangePoint> points;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) break;
    KV_RETURN_IF_ERROR(
        ParseBlob(select->ColumnBlob(0), points.emplace_back(), db_.Where("change_points")));
  }
  return points;
}

absl::Status SqlRegressionStore::SetBaseline(const v1::Baseline& baseline) {
  absl::MutexLock lock(&db_.mu());
  if (baseline.job_id().empty()) {
    KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> remove, db_.PrepareOnce(kDeleteBaseline));
    remove->BindText(1, baseline.schedule());
    return remove->Run();
  }
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> upsert, db_.PrepareOnce(kUpsertBaseline));
  upsert->BindText(1, baseline.schedule());
  upsert->BindBlob(2, baseline.SerializeAsString());
  return upsert->Run();
}

absl::StatusOr<v1::Baseline> SqlRegressionStore::GetBaseline(const std::string& schedule) {
  absl::MutexLock lock(&db_.mu());
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> select, db_.PrepareOnce(kSelectBaseline));
  select->BindText(1, schedule);
  v1::Baseline baseline;
  baseline.set_schedule(schedule);
  KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
  if (has_row)
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(0), baseline, db_.Where("baselines")));
  return baseline;
}

absl::StatusOr<std::vector<v1::AlertWithDeliveries>> SqlRegressionStore::ListAlerts(
    const std::string& schedule, const std::string& job_id, int limit) {
  absl::MutexLock lock(&db_.mu());
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> select, db_.PrepareOnce(kSelectAlerts));
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> deliveries,
                      db_.PrepareOnce(kSelectDeliveriesOfAlert));
  select->BindText(1, schedule);
  select->BindText(2, job_id);
  select->BindInt(3, std::max(1, limit));
  std::vector<v1::AlertWithDeliveries> alerts;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) break;
    v1::AlertWithDeliveries& entry = alerts.emplace_back();
    KV_RETURN_IF_ERROR(
        ParseBlob(select->ColumnBlob(0), *entry.mutable_alert(), db_.Where("alerts")));
    deliveries->Reset();
    deliveries->BindText(1, entry.alert().alert_id());
    while (true) {
      KV_ASSIGN_OR_RETURN(bool has_delivery, deliveries->Step());
      if (!has_delivery) break;
      KV_RETURN_IF_ERROR(
          ParseBlob(deliveries->ColumnBlob(0), *entry.add_deliveries(), db_.Where("deliveries")));
    }
  }
  return alerts;
}

absl::StatusOr<std::vector<DueDelivery>> SqlRegressionStore::DueDeliveries(
    absl::Time now, int limit, const std::string& webhook) {
  absl::MutexLock lock(&db_.mu());
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> select, db_.PrepareOnce(kSelectDueDeliveries));
  select->BindInt(1, v1::DELIVERY_PENDING);
  select->BindInt(2, absl::ToUnixMillis(now));
  select->BindInt(3, std::max(1, limit));
  select->BindText(4, webhook);
  std::vector<DueDelivery> due;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) break;
    DueDelivery& entry = due.emplace_back();
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(0), entry.delivery, db_.Where("deliveries")));
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(1), entry.alert, db_.Where("alerts")));
  }
  return due;
}

absl::StatusOr<std::optional<absl::Time>> SqlRegressionStore::NextDeliveryTime(
    const std::string& webhook) {
  absl::MutexLock lock(&db_.mu());
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> select, db_.PrepareOnce(kSelectNextDelivery));
  select->BindInt(1, v1::DELIVERY_PENDING);
  select->BindText(2, webhook);
  KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
  if (!has_row || select->ColumnIsNull(0)) return std::optional<absl::Time>();
  return std::optional<absl::Time>(absl::FromUnixMillis(select->ColumnInt(0)));
}

absl::StatusOr<std::vector<std::string>> SqlRegressionStore::PendingWebhooks() {
  absl::MutexLock lock(&db_.mu());
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> select,
                      db_.PrepareOnce(kSelectPendingWebhooks));
  select->BindInt(1, v1::DELIVERY_PENDING);
  std::vector<std::string> webhooks;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) break;
    webhooks.push_back(select->ColumnText(0));
  }
  return webhooks;
}

absl::Status SqlRegressionStore::UpdateDelivery(const v1::AlertDelivery& delivery) {
  absl::MutexLock lock(&db_.mu());
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> upsert, db_.PrepareOnce(kUpsertDelivery));
  BindDelivery(*upsert, delivery);
  return upsert->Run();
}

absl::StatusOr<int> SqlRegressionStore::RedeliverNow(const std::string& webhook,
                                                     bool include_failed, absl::Time now) {
  absl::MutexLock lock(&db_.mu());
  int redelivered = 0;
  const absl::Status written = db_.InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(
                                                     db_.mu()) -> absl::Status {
    KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> select, db_.PrepareOnce(kSelectUndelivered));
    select->BindText(1, webhook);
    select->BindInt(2, v1::DELIVERY_PENDING);
    select->BindInt(3, include_failed ? v1::DELIVERY_FAILED : v1::DELIVERY_PENDING);
    std::vector<v1::AlertDelivery> undelivered;
    while (true) {
      KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
      if (!has_row) break;
      KV_RETURN_IF_ERROR(
          ParseBlob(select->ColumnBlob(0), undelivered.emplace_back(), db_.Where("deliveries")));
    }
    KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> upsert, db_.PrepareOnce(kUpsertDelivery));
    for (v1::AlertDelivery& delivery : undelivered) {
      if (delivery.state() == v1::DELIVERY_FAILED) {
        delivery.set_state(v1::DELIVERY_PENDING);
        delivery.set_attempts(0);
        delivery.set_first_attempt_unix_ms(0);
      }
      delivery.set_next_attempt_unix_ms(absl::ToUnixMillis(now));
      upsert->Reset();
      BindDelivery(*upsert, delivery);
      KV_RETURN_IF_ERROR(upsert->Run());
    }
    redelivered = static_cast<int>(undelivered.size());
    return absl::OkStatus();
  });
  if (!written.ok()) return written;
  return redelivered;
}

absl::StatusOr<std::map<v1::DeliveryState, int64_t>> SqlRegressionStore::CountDeliveries() {
  absl::MutexLock lock(&db_.mu());
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> select, db_.PrepareOnce(kCountDeliveries));
  std::map<v1::DeliveryState, int64_t> counts;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) break;
    counts[static_cast<v1::DeliveryState>(select->ColumnInt(0))] = select->ColumnInt(1);
  }
  return counts;
}

}  // namespace kvbench::controller
