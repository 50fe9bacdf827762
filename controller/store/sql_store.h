#pragma once

// The controller's Store on SQL: one SqlDatabase (connection, schema, transactions) and a table
// class per family over it, the same tables and statements on either engine:
// - SQLite, one file (sqlite_database.h for durability and threads): the default, and what
//   `kvctl run` embeds;
// - PostgreSQL, a server the operator runs (postgres_database.h): for fleets whose controller must
//   not live on one disk.
// The tables share the database's one mutex, so calls on any of them are serialized.

#include <memory>
#include <string>

#include "controller/store/leadership.h"
#include "controller/store/sql_agent_store.h"
#include "controller/store/sql_database.h"
#include "controller/store/sql_event_log.h"
#include "controller/store/sql_job_store.h"
#include "controller/store/sql_regression_store.h"
#include "controller/store/sql_schedule_store.h"
#include "controller/store/store.h"

namespace kvbench::controller {

class SqlStore : public Store {
 public:
  // Opens (creating if missing) the SQLite file at `path` with its schema (SqliteDatabase::Open's
  // errors, each naming the path) and prepares every table.
  static absl::StatusOr<std::unique_ptr<SqlStore>> OpenSqlite(const std::string& path);
  // Connects to PostgreSQL with the libpq connection string `dsn`, creates or upgrades the
  // schema (PostgresDatabase::Open's errors, each naming host, port and database, never the
  // password) and prepares every table.
  static absl::StatusOr<std::unique_ptr<SqlStore>> OpenPostgres(const std::string& dsn);

  JobStore& Jobs() override { return *jobs_; }
  EventLog& Events() override { return *events_; }
  AgentStore& Agents() override { return *agents_; }
  ScheduleStore& Schedules() override { return *schedules_; }
  RegressionStore& Regressions() override { return *regressions_; }
  // The leader lease of controllers sharing the database (PostgreSQL); null on SQLite, whose
  // file one controller holds alone (data_dir/.lock).
  Leadership* leadership() { return leadership_; }

 private:
  SqlStore() = default;
  static absl::StatusOr<std::unique_ptr<SqlStore>> OnDatabase(std::unique_ptr<SqlDatabase> db);

  // The database first: the tables' statements are finalized before its connection closes.
  std::unique_ptr<SqlDatabase> db_;
  std::unique_ptr<SqlJobStore> jobs_;
  std::unique_ptr<SqlEventLog> events_;
  std::unique_ptr<SqlAgentStore> agents_;
  std::unique_ptr<SqlScheduleStore> schedules_;
  std::unique_ptr<SqlRegressionStore> regressions_;
  Leadership* leadership_ = nullptr;  // db_'s, on PostgreSQL
};

}  // namespace kvbench::controller
