#pragma once

// Store on one SQLite file: one SqliteDatabase (connection, schema, transactions; see
// sqlite_database.h for durability and threads) and a table class per family over it. The
// tables share the database's one mutex, so calls on any of them are serialized.

#include <memory>
#include <string>

#include "controller/store/sqlite_agent_store.h"
#include "controller/store/sqlite_database.h"
#include "controller/store/sqlite_event_log.h"
#include "controller/store/sqlite_job_store.h"
#include "controller/store/sqlite_regression_store.h"
#include "controller/store/sqlite_schedule_store.h"
#include "controller/store/store.h"

namespace kvbench::controller {

class SqliteStore : public Store {
 public:
  // Opens (creating if missing) the database at `path` with its schema (SqliteDatabase::Open's
  // errors, each naming the path) and prepares every table.
  static absl::StatusOr<std::unique_ptr<SqliteStore>> Open(const std::string& path);

  JobStore& Jobs() override { return *jobs_; }
  EventLog& Events() override { return *events_; }
  AgentStore& Agents() override { return *agents_; }
  ScheduleStore& Schedules() override { return *schedules_; }
  RegressionStore& Regressions() override { return *regressions_; }

 private:
  SqliteStore() = default;

  // The database first: the tables' statements are finalized before its connection closes.
  std::unique_ptr<SqliteDatabase> db_;
  std::unique_ptr<SqliteJobStore> jobs_;
  std::unique_ptr<SqliteEventLog> events_;
  std::unique_ptr<SqliteAgentStore> agents_;
  std::unique_ptr<SqliteScheduleStore> schedules_;
  std::unique_ptr<SqliteRegressionStore> regressions_;
};

}  // namespace kvbench::controller
