// SqlStore, what request exports and schedules need: per-request records kept apart from the
// event log (per scenario attempt, stored once however often an agent resends), pruned by age;
// schedules and their fires keyed by fire time; and a version 1 file (kvbench before schedules)
// upgraded in place with its jobs.

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "controller/store/sql_store.h"
#include "controller/store/sqlite_database.h"
#include "controller/store/sqlite_schema.h"
#include "tests/component/controller/store/open_store.h"
#include "tests/support/temp_dir.h"

namespace kvbench::controller {
namespace {

using testing::OpenStore;

v1::Event RequestsEvent(int64_t seq, int attempt, int first_index, int rows, int total) {
  v1::Event event;
  event.set_seq(seq);
  event.set_agent_id("h200-a");
  event.set_job_id("job-1");
  event.set_scenario_id("00-gpu-c2");
  event.set_attempt(attempt);
  v1::RequestRecords& records = *event.mutable_requests();
  records.set_first_index(first_index);
  records.set_total(total);
  for (int i = 0; i < rows; ++i) {
    v1::RequestRow& row = *records.add_rows();
    row.set_user_id("0000-0" + std::to_string(first_index + i));
    row.set_round(1);
    row.set_ttft_s(0.25 * (first_index + i));
  }
  return event;
}

TEST_CASE("request records are kept per attempt apart from the event log", "[store][requests]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto store = at.Open();
  absl::StatusOr<std::vector<bool>> stored = store->Events().AppendEvents(
      {RequestsEvent(1, 1, 0, 2, 3), RequestsEvent(2, 1, 2, 1, 3), RequestsEvent(3, 2, 0, 1, 1)});
  REQUIRE(stored.ok());
  // The agent resends seq 1 (a lost ack): stored once.
  REQUIRE(store->Events().AppendEvents({RequestsEvent(1, 1, 0, 2, 3)}).ok());

  absl::StatusOr<std::vector<v1::RequestRecords>> first =
      store->Events().ListRequests("job-1", "00-gpu-c2", 1, -1, 10);
  REQUIRE(first.ok());
  REQUIRE(first->size() == 2);
  CHECK((*first)[0].rows_size() == 2);
  CHECK((*first)[1].first_index() == 2);
  CHECK((*first)[1].rows(0).ttft_s() == 0.5);
  // Paging by first_index; the other attempt is apart.
  CHECK(store->Events().ListRequests("job-1", "00-gpu-c2", 1, 0, 10)->size() == 1);
  CHECK(store->Events().ListRequests("job-1", "00-gpu-c2", 2, -1, 10)->size() == 1);
  CHECK(store->Events().ListRequests("job-1", "01-cpu-ram-c2", 1, -1, 10)->empty());

  // The event log keeps the events, without their rows.
  absl::StatusOr<std::vector<StoredEvent>> events = store->Events().EventsForJob("job-1", 0, 10);
  REQUIRE(events.ok());
  REQUIRE(events->size() == 3);
  CHECK((*events)[0].event.requests().rows_size() == 0);
  CHECK((*events)[0].event.requests().total() == 3);

  // Pruning by age: nothing is older than an hour ago; everything is older than a second ahead.
  CHECK(*store->Events().PruneRequests(absl::Now() - absl::Hours(1)) == 0);
  CHECK(*store->Events().PruneRequests(absl::Now() + absl::Seconds(1)) == 3);
  CHECK(store->Events().ListRequests("job-1", "00-gpu-c2", 1, -1, 10)->empty());
  CHECK(store->Events().EventsForJob("job-1", 0, 10)->size() == 3);  // the log stays
}

TEST_CASE("a fire is recorded once per schedule and fire time", "[store][schedules]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto store = at.Open();
  v1::Schedule schedule;
  schedule.mutable_spec()->set_name("nightly");
  schedule.mutable_spec()->set_cron("0 2 * * *");
  REQUIRE(store->Schedules().CreateSchedule(schedule).ok());
  CHECK(store->Schedules().CreateSchedule(schedule).code() == absl::StatusCode::kAlreadyExists);

  v1::ScheduleFire fire;
  fire.set_fire_unix_ms(1000);
  fire.set_outcome(v1::FIRE_SUBMITTED);
  fire.set_job_id("job-1");
  schedule.set_handled_until_unix_ms(1000);
  CHECK(*store->Schedules().RecordFire(schedule, fire) == true);
  fire.set_job_id("job-2");  // a second controller racing for the same fire time
  schedule.set_handled_until_unix_ms(5000);
  CHECK(*store->Schedules().RecordFire(schedule, fire) == false);
  absl::StatusOr<std::vector<v1::Schedule>> schedules = store->Schedules().ListSchedules();
  REQUIRE(schedules->size() == 1);
  CHECK((*schedules)[0].handled_until_unix_ms() == 1000);  // nothing of the refused one
  absl::StatusOr<std::vector<v1::ScheduleFire>> fires =
      store->Schedules().RecentFires("nightly", 10);
  REQUIRE(fires->size() == 1);
  CHECK((*fires)[0].job_id() == "job-1");

  REQUIRE(store->Schedules().DeleteSchedule("nightly").ok());
  CHECK(store->Schedules().ListSchedules()->empty());
  CHECK(store->Schedules().RecentFires("nightly", 10)->empty());
  CHECK(store->Schedules().DeleteSchedule("nightly").code() == absl::StatusCode::kNotFound);
}

TEST_CASE("a version 1 store is upgraded in place and keeps its jobs", "[store]") {
  testing::TempDir dir;
  const std::string path = dir.path() + "/controller.db";
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, sql::kSchemaV1, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  {
    auto old = OpenStore(path);  // upgrades
    v1::Scenario scenario;
    scenario.set_scenario_id("s0");
    scenario.set_job_id("job-1");
    v1::JobSpec spec;
    spec.set_name("kept");
    REQUIRE(old->Jobs().PutJob("job-1", spec, {scenario}, 0, absl::Now(), "").ok());
  }
  auto store = OpenStore(path);
  CHECK(store->Jobs().GetJob("job-1")->spec.name() == "kept");
  v1::Schedule schedule;
  schedule.mutable_spec()->set_name("nightly");
  CHECK(store->Schedules().CreateSchedule(schedule).ok());
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* version = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &version, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(version) == SQLITE_ROW);
  CHECK(sqlite3_column_int(version, 0) == kSqliteSchemaVersion);
  sqlite3_finalize(version);
  sqlite3_close(db);
}

}  // namespace
}  // namespace kvbench::controller
