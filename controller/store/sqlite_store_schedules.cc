// SqliteStore, schedules and their fires (issue #20). Jobs and scenarios are in sqlite_store.cc,
// what agents report in sqlite_store_events.cc.

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "controller/store/sqlite_store.h"
#include "controller/store/sqlite_store_internal.h"

namespace kvbench::controller {

using store_internal::ParseBlob;

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

absl::Status SqliteStore::CreateSchedule(const v1::Schedule& schedule) {
  absl::MutexLock lock(&mu_);
  ScopedStatement insert(*statements_->insert_schedule);
  insert->BindText(1, schedule.spec().name());
  insert->BindBlob(2, ScheduleBlob(schedule));
  absl::Status status = insert->Run();
  if (status.code() == absl::StatusCode::kAlreadyExists) {
    return absl::AlreadyExistsError(
        absl::StrCat("a schedule named \"", schedule.spec().name(), "\" exists"));
  }
  return status;
}

absl::Status SqliteStore::UpdateScheduleLocked(const v1::Schedule& schedule) {
  ScopedStatement update(*statements_->update_schedule);
  update->BindText(1, schedule.spec().name());
  update->BindBlob(2, ScheduleBlob(schedule));
  KV_RETURN_IF_ERROR(update->Run());
  if (sqlite3_changes(db_) == 0) {
    return absl::NotFoundError(absl::StrCat("no schedule named \"", schedule.spec().name(), "\""));
  }
  return absl::OkStatus();
}

absl::Status SqliteStore::UpdateSchedule(const v1::Schedule& schedule) {
  absl::MutexLock lock(&mu_);
  return UpdateScheduleLocked(schedule);
}

absl::StatusOr<std::vector<v1::Schedule>> SqliteStore::ListSchedules() {
  absl::MutexLock lock(&mu_);
  ScopedStatement select(*statements_->select_schedules);
  std::vector<v1::Schedule> schedules;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) break;
    v1::Schedule schedule;
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(0), schedule, Where("schedules")));
    schedules.push_back(std::move(schedule));
  }
  return schedules;
}

absl::Status SqliteStore::DeleteSchedule(const std::string& name) {
  absl::MutexLock lock(&mu_);
  return InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    ScopedStatement remove(*statements_->delete_schedule);
    remove->BindText(1, name);
    KV_RETURN_IF_ERROR(remove->Run());
    if (sqlite3_changes(db_) == 0) {
      return absl::NotFoundError(absl::StrCat("no schedule named \"", name, "\""));
    }
    ScopedStatement fires(*statements_->delete_schedule_fires);
    fires->BindText(1, name);
    return fires->Run();
  });
}

absl::StatusOr<bool> SqliteStore::RecordFire(const v1::Schedule& schedule,
                                             const v1::ScheduleFire& fire) {
  absl::MutexLock lock(&mu_);
  bool inserted = false;
  absl::Status recorded = InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    ScopedStatement insert(*statements_->insert_schedule_fire);
    insert->BindText(1, schedule.spec().name());
    insert->BindInt(2, FireKey(fire));
    insert->BindBlob(3, fire.SerializeAsString());
    KV_RETURN_IF_ERROR(insert->Run());
    inserted = sqlite3_changes(db_) > 0;
    if (!inserted) return absl::OkStatus();
    return UpdateScheduleLocked(schedule);
  });
  if (!recorded.ok()) return recorded;
  return inserted;
}

absl::StatusOr<std::vector<v1::ScheduleFire>> SqliteStore::RecentFires(const std::string& name,
                                                                       int limit) {
  absl::MutexLock lock(&mu_);
  ScopedStatement select(*statements_->select_schedule_fires);
  select->BindText(1, name);
  select->BindInt(2, limit);
  std::vector<v1::ScheduleFire> fires;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) break;
    v1::ScheduleFire fire;
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(0), fire, Where("schedule_fires")));
    fires.push_back(std::move(fire));
  }
  return fires;
}

}  // namespace kvbench::controller
