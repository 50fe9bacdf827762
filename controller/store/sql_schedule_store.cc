#include "controller/store/sql_schedule_store.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "controller/store/sql_blob.h"
#include "controller/store/sql_statements.h"

namespace kvbench::controller {

using store_internal::ParseBlob;

absl::StatusOr<std::unique_ptr<SqlScheduleStore>> SqlScheduleStore::Create(SqlDatabase* db) {
  std::unique_ptr<SqlScheduleStore> store(new SqlScheduleStore(db));
  absl::MutexLock lock(&db->mu());
  KV_RETURN_IF_ERROR(store->PrepareStatements());
  return store;
}

absl::Status SqlScheduleStore::PrepareStatements() {
  KV_RETURN_IF_ERROR(db_.Prepare(insert_schedule_, sql::kInsertSchedule));
  KV_RETURN_IF_ERROR(db_.Prepare(update_schedule_, sql::kUpdateSchedule));
  KV_RETURN_IF_ERROR(db_.Prepare(select_schedules_, sql::kSelectSchedules));
  KV_RETURN_IF_ERROR(db_.Prepare(delete_schedule_, sql::kDeleteSchedule));
  KV_RETURN_IF_ERROR(db_.Prepare(delete_schedule_fires_, sql::kDeleteScheduleFires));
  KV_RETURN_IF_ERROR(db_.Prepare(insert_schedule_fire_, sql::kInsertScheduleFire));
  return db_.Prepare(select_schedule_fires_, sql::kSelectScheduleFires);
}

int64_t FireKey(const v1::ScheduleFire& fire) {
  return fire.run_now() ? -fire.handled_unix_ms() : fire.fire_unix_ms();
}

namespace {

// What is stored of a schedule: everything but the fires (they have their own table).
std::string ScheduleBlob(const v1::Schedule& schedule) {
  v1::Schedule stored = schedule;
  stored.clear_recent_fires();
  return stored.SerializeAsString();
}

}  // namespace

absl::Status SqlScheduleStore::CreateSchedule(const v1::Schedule& schedule) {
  absl::MutexLock lock(&db_.mu());
  ScopedStatement insert(*insert_schedule_);
  insert->BindText(1, schedule.spec().name());
  insert->BindBlob(2, ScheduleBlob(schedule));
  absl::Status status = insert->Run();
  if (status.code() == absl::StatusCode::kAlreadyExists) {
    return absl::AlreadyExistsError(
        absl::StrCat("a schedule named \"", schedule.spec().name(), "\" exists"));
  }
  return status;
}

absl::Status SqlScheduleStore::UpdateScheduleLocked(const v1::Schedule& schedule) {
  ScopedStatement update(*update_schedule_);
  update->BindText(1, schedule.spec().name());
  update->BindBlob(2, ScheduleBlob(schedule));
  KV_RETURN_IF_ERROR(update->Run());
  if (db_.Changes() == 0) {
    return absl::NotFoundError(absl::StrCat("no schedule named \"", schedule.spec().name(), "\""));
  }
  return absl::OkStatus();
}

absl::Status SqlScheduleStore::UpdateSchedule(const v1::Schedule& schedule) {
  absl::MutexLock lock(&db_.mu());
  return UpdateScheduleLocked(schedule);
}

absl::StatusOr<std::vector<v1::Schedule>> SqlScheduleStore::ListSchedules() {
  absl::MutexLock lock(&db_.mu());
  ScopedStatement select(*select_schedules_);
  std::vector<v1::Schedule> schedules;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) break;
    v1::Schedule schedule;
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(0), schedule, db_.Where("schedules")));
    schedules.push_back(std::move(schedule));
  }
  return schedules;
}

absl::Status SqlScheduleStore::DeleteSchedule(const std::string& name) {
  absl::MutexLock lock(&db_.mu());
  return db_.InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu()) -> absl::Status {
    ScopedStatement remove(*delete_schedule_);
    remove->BindText(1, name);
    KV_RETURN_IF_ERROR(remove->Run());
    if (db_.Changes() == 0) {
      return absl::NotFoundError(absl::StrCat("no schedule named \"", name, "\""));
    }
    ScopedStatement fires(*delete_schedule_fires_);
    fires->BindText(1, name);
    return fires->Run();
  });
}

absl::StatusOr<bool> SqlScheduleStore::RecordFire(const v1::Schedule& schedule,
                                                  const v1::ScheduleFire& fire) {
  absl::MutexLock lock(&db_.mu());
  bool inserted = false;
  absl::Status recorded =
      db_.InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu()) -> absl::Status {
        ScopedStatement insert(*insert_schedule_fire_);
        insert->BindText(1, schedule.spec().name());
        insert->BindInt(2, FireKey(fire));
        insert->BindBlob(3, fire.SerializeAsString());
        KV_RETURN_IF_ERROR(insert->Run());
        inserted = db_.Changes() > 0;
        if (!inserted) return absl::OkStatus();
        return UpdateScheduleLocked(schedule);
      });
  if (!recorded.ok()) return recorded;
  return inserted;
}

absl::StatusOr<std::vector<v1::ScheduleFire>> SqlScheduleStore::RecentFires(const std::string& name,
                                                                            int limit) {
  absl::MutexLock lock(&db_.mu());
  ScopedStatement select(*select_schedule_fires_);
  select->BindText(1, name);
  select->BindInt(2, limit);
  std::vector<v1::ScheduleFire> fires;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) break;
    v1::ScheduleFire fire;
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(0), fire, db_.Where("schedule_fires")));
    fires.push_back(std::move(fire));
  }
  return fires;
}

}  // namespace kvbench::controller
