#pragma once

// ScheduleStore on the tables schedules and schedule_fires of a SqlDatabase.

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "controller/store/schedule_store.h"
#include "controller/store/sql_database.h"
#include "controller/store/sql_statement.h"

namespace kvbench::controller {

class SqlScheduleStore : public ScheduleStore {
 public:
  // Prepares the statements on `db`, which must outlive the store.
  static absl::StatusOr<std::unique_ptr<SqlScheduleStore>> Create(SqlDatabase* db);

  absl::Status CreateSchedule(const v1::Schedule& schedule) override;
  absl::Status UpdateSchedule(const v1::Schedule& schedule) override;
  absl::StatusOr<std::vector<v1::Schedule>> ListSchedules() override;
  absl::Status DeleteSchedule(const std::string& name) override;
  absl::StatusOr<bool> RecordFire(const v1::Schedule& schedule,
                                  const v1::ScheduleFire& fire) override;
  absl::StatusOr<std::vector<v1::ScheduleFire>> RecentFires(const std::string& name,
                                                            int limit) override;

 private:
  explicit SqlScheduleStore(SqlDatabase* db) : db_(*db) {}

  absl::Status PrepareStatements() ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu());
  absl::Status UpdateScheduleLocked(const v1::Schedule& schedule)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu());

  SqlDatabase& db_;
  // Prepared once, used under db_.mu().
  std::unique_ptr<SqlStatement> insert_schedule_, update_schedule_, select_schedules_,
      delete_schedule_, delete_schedule_fires_, insert_schedule_fire_, select_schedule_fires_;
};

}  // namespace kvbench::controller
