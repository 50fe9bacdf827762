// SqlStore, what the regression analysis needs: a run's analysis stored once with its change
// points, alerts and a pending delivery per alert and webhook in one transaction (a second record
// of the same job writes nothing, also after a reopen); deliveries due by time, updated, counted,
// made due again on request; pinned baselines; and a version 2 file upgraded in place.

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>

#include "controller/store/sql_store.h"
#include "controller/store/sqlite_schema.h"
#include "tests/component/controller/store/open_store.h"
#include "tests/support/temp_dir.h"

namespace kvbench::controller {
namespace {

using testing::OpenStore;

v1::RunAnalysis AnalysisWithAlerts(const std::string& job_id, int alerts) {
  v1::RunAnalysis analysis;
  analysis.set_job_id(job_id);
  analysis.set_schedule("nightly");
  analysis.set_analyzed_unix_ms(1000);
  analysis.set_baseline_kind("segment");
  for (int i = 0; i < alerts; ++i) {
    v1::RegressionAlert* alert = analysis.add_alerts();
    alert->set_alert_id(job_id + "/diff/gpu-c2@sim-a/ttft_p" + std::to_string(50 + i) + "_s");
    alert->set_schedule("nightly");
    alert->set_job_id(job_id);
    alert->set_change(12.5);
  }
  v1::ChangePoint* point = analysis.add_new_change_points();
  point->set_schedule("nightly");
  point->set_job_id(job_id);
  point->set_metric("ttft_p95_s");
  return analysis;
}

TEST_CASE("An analysis is recorded once with its alerts and deliveries", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  const absl::Time now = absl::FromUnixMillis(5000);
  {
    auto store = at.Open();
    CHECK_FALSE(store->Regressions().GetAnalysis("job-1")->has_value());
    REQUIRE(
        *store->Regressions().RecordAnalysis(AnalysisWithAlerts("job-1", 2), {"ops", "chat"}, now));
    // The same job again (a controller that crashed before it learned the first one landed).
    CHECK_FALSE(
        *store->Regressions().RecordAnalysis(AnalysisWithAlerts("job-1", 3), {"ops", "chat"}, now));
  }
  auto store = at.Open();
  REQUIRE(store->Regressions().GetAnalysis("job-1")->has_value());
  CHECK((*store->Regressions().GetAnalysis("job-1"))->alerts_size() == 2);
  CHECK(store->Regressions().ListChangePoints("nightly")->size() == 1);
  CHECK(store->Regressions().ListChangePoints("other")->empty());
  CHECK(store->Regressions().ListChangePoints("")->size() == 1);
  absl::StatusOr<std::vector<v1::AlertWithDeliveries>> alerts =
      store->Regressions().ListAlerts("", "", 10);
  REQUIRE(alerts->size() == 2);
  CHECK((*alerts)[0].deliveries_size() == 2);  // one per webhook, by name
  CHECK((*alerts)[0].deliveries(0).webhook() == "chat");
  CHECK((*alerts)[0].deliveries(0).state() == v1::DELIVERY_PENDING);
  CHECK(store->Regressions().ListAlerts("nightly", "job-2", 10)->empty());

  // Due now: all four; not before.
  CHECK(store->Regressions().DueDeliveries(now - absl::Milliseconds(1), 10, "")->empty());
  absl::StatusOr<std::vector<DueDelivery>> due = store->Regressions().DueDeliveries(now, 10, "");
  REQUIRE(due->size() == 4);
  CHECK(due->front().alert.change() == 12.5);
  CHECK(**store->Regressions().NextDeliveryTime("") == now);
  // One webhook's alone (each webhook's worker reads its own): two each, none for another name.
  const std::vector<DueDelivery> chat = *store->Regressions().DueDeliveries(now, 10, "chat");
  REQUIRE(chat.size() == 2);
  for (const DueDelivery& entry : chat) CHECK(entry.delivery.webhook() == "chat");
  CHECK(store->Regressions().DueDeliveries(now, 10, "nobody")->empty());
  CHECK(**store->Regressions().NextDeliveryTime("ops") == now);
  CHECK_FALSE(store->Regressions().NextDeliveryTime("nobody")->has_value());
  CHECK(*store->Regressions().PendingWebhooks() == std::vector<std::string>{"chat", "ops"});

  v1::AlertDelivery delivered = (*due)[0].delivery;
  delivered.set_state(v1::DELIVERY_DELIVERED);
  delivered.set_attempts(1);
  REQUIRE(store->Regressions().UpdateDelivery(delivered).ok());
  v1::AlertDelivery later = (*due)[1].delivery;
  later.set_attempts(1);
  later.set_next_attempt_unix_ms(9000);
  REQUIRE(store->Regressions().UpdateDelivery(later).ok());
  CHECK(store->Regressions().DueDeliveries(now, 10, "")->size() == 2);
  CHECK(store->Regressions().DueDeliveries(absl::FromUnixMillis(9000), 10, "")->size() == 3);
  std::map<v1::DeliveryState, int64_t> counts = *store->Regressions().CountDeliveries();
  CHECK(counts[v1::DELIVERY_PENDING] == 3);
  CHECK(counts[v1::DELIVERY_DELIVERED] == 1);
}

TEST_CASE("Redelivery makes undelivered deliveries due now and never touches delivered ones",
          "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto store = at.Open();
  const absl::Time raised = absl::FromUnixMillis(5000);
  REQUIRE(*store->Regressions().RecordAnalysis(AnalysisWithAlerts("job-1", 3), {"ops", "chat"},
                                               raised));
  std::vector<DueDelivery> due = *store->Regressions().DueDeliveries(raised, 10, "");
  REQUIRE(due.size() == 6);
  // ops: one delivered, one failed for good, one waiting out its backoff; chat: all waiting.
  std::map<std::string, v1::AlertDelivery> ops;
  for (const DueDelivery& each : due) {
    v1::AlertDelivery delivery = each.delivery;
    delivery.set_attempts(7);
    delivery.set_first_attempt_unix_ms(5000);
    delivery.set_next_attempt_unix_ms(900000);
    delivery.set_last_detail("HTTP 503");
    if (delivery.webhook() == "ops") {
      if (ops.empty()) delivery.set_state(v1::DELIVERY_DELIVERED);
      if (ops.size() == 1) delivery.set_state(v1::DELIVERY_FAILED);
      ops[delivery.alert_id()] = delivery;
    }
    REQUIRE(store->Regressions().UpdateDelivery(delivery).ok());
  }
  const absl::Time asked = absl::FromUnixMillis(60000);
  CHECK(store->Regressions().DueDeliveries(asked, 10, "")->empty());

  // Only ops's pending one.
  CHECK(*store->Regressions().RedeliverNow("ops", /*include_failed=*/false, asked) == 1);
  due = *store->Regressions().DueDeliveries(asked, 10, "");
  REQUIRE(due.size() == 1);
  CHECK(due[0].delivery.webhook() == "ops");
  CHECK(due[0].delivery.attempts() == 7);  // the backoff goes on from where it was
  CHECK(due[0].delivery.next_attempt_unix_ms() == 60000);

  // ops's failed one too: pending again, its attempts starting over.
  CHECK(*store->Regressions().RedeliverNow("ops", /*include_failed=*/true, asked) == 2);
  due = *store->Regressions().DueDeliveries(asked, 10, "");
  REQUIRE(due.size() == 2);
  int fresh = 0;
  for (const DueDelivery& each : due) {
    CHECK(each.delivery.state() == v1::DELIVERY_PENDING);
    if (each.delivery.attempts() == 0) {
      ++fresh;
      CHECK(each.delivery.first_attempt_unix_ms() == 0);
      CHECK(each.delivery.last_detail() == "HTTP 503");
    }
  }
  CHECK(fresh == 1);

  // Every webhook: chat's three join; the delivered one never comes back.
  CHECK(*store->Regressions().RedeliverNow("", /*include_failed=*/true, asked) == 5);
  CHECK(store->Regressions().DueDeliveries(asked, 10, "")->size() == 5);
  std::map<v1::DeliveryState, int64_t> counts = *store->Regressions().CountDeliveries();
  CHECK(counts[v1::DELIVERY_DELIVERED] == 1);
  CHECK(counts[v1::DELIVERY_FAILED] == 0);
  CHECK(*store->Regressions().RedeliverNow("nobody", /*include_failed=*/true, asked) == 0);
}

TEST_CASE("A baseline is pinned and unpinned", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto store = at.Open();
  CHECK(store->Regressions().GetBaseline("nightly")->job_id().empty());
  v1::Baseline baseline;
  baseline.set_schedule("nightly");
  baseline.set_job_id("job-7");
  baseline.set_set_unix_ms(42);
  REQUIRE(store->Regressions().SetBaseline(baseline).ok());
  CHECK(store->Regressions().GetBaseline("nightly")->job_id() == "job-7");
  CHECK(store->Regressions().GetBaseline("nightly")->set_unix_ms() == 42);
  baseline.clear_job_id();
  REQUIRE(store->Regressions().SetBaseline(baseline).ok());
  CHECK(store->Regressions().GetBaseline("nightly")->job_id().empty());
}

TEST_CASE("A version 2 store is upgraded to version 3 in place", "[store]") {
  testing::TempDir dir;
  const std::string path = dir.path() + "/controller.db";
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, sql::kSchemaV1, nullptr, nullptr, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, sql::kSchemaV2Upgrade, nullptr, nullptr, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "INSERT INTO schedules (name, schedule) VALUES ('kept', x'')", nullptr,
                         nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  auto store = OpenStore(path);
  REQUIRE(store->Schedules().ListSchedules()->size() == 1);  // what version 2 held is still there
  REQUIRE(
      *store->Regressions().RecordAnalysis(AnalysisWithAlerts("job-1", 1), {"ops"}, absl::Now()));
  CHECK(store->Regressions().ListAlerts("", "", 10)->size() == 1);
}

}  // namespace
}  // namespace kvbench::controller
