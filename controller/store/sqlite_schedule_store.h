#pragma once

// ScheduleStore on the tables schedules and schedule_fires of a SqliteDatabase.

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "controller/store/schedule_store.h"
#include "controller/store/sqlite_database.h"
#include "controller/store/sqlite_statement.h"

namespace kvbench::controller {

class SqliteScheduleStore : public ScheduleStore {
 public:
  // Prepares the statements on `db`, which must outlive the store.
  static absl::StatusOr<std::unique_ptr<SqliteScheduleStore>> Create(SqliteDatabase* db);

  absl::Status CreateSchedule(const v1::Schedule& schedule) override;
  absl::Status UpdateSchedule(const v1::Schedule& schedule) override;
  absl::StatusOr<std::vector<v1::Schedule>> ListSchedules() override;
  absl::Status DeleteSchedule(const std::string& name) override;
  absl::StatusOr<bool> RecordFire(const v1::Schedule& schedule,
                                  const v1::ScheduleFire& fire) override;
  absl::StatusOr<std::vector<v1::ScheduleFire>> RecentFires(const std::string& name,
                                                            int limit) override;

 private:
  explicit SqliteScheduleStore(SqliteDatabase* db) : db_(*db) {}

  absl::Status PrepareStatements() ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu());
  absl::Status UpdateScheduleLocked(const v1::Schedule& schedule)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu());

  SqliteDatabase& db_;
  // Prepared once, used under db_.mu().
  std::unique_ptr<SqliteStatement> insert_schedule_, update_schedule_, select_schedules_,
      delete_schedule_, delete_schedule_fires_, insert_schedule_fire_, select_schedule_fires_;
};

}  // namespace kvbench::controller
