#include "controller/store/sql_store.h"

#include <utility>

#include "common/status/status_macros.h"
#include "controller/store/postgres_database.h"
#include "controller/store/sqlite_database.h"

namespace kvbench::controller {

absl::StatusOr<std::unique_ptr<SqlStore>> SqlStore::OpenSqlite(const std::string& path) {
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDatabase> db, SqliteDatabase::Open(path));
  return OnDatabase(std::move(db));
}

absl::StatusOr<std::unique_ptr<SqlStore>> SqlStore::OpenPostgres(const std::string& dsn) {
  KV_ASSIGN_OR_RETURN(std::unique_ptr<PostgresDatabase> db, PostgresDatabase::Open(dsn));
  Leadership* leadership = db.get();
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStore> store, OnDatabase(std::move(db)));
  store->leadership_ = leadership;
  return store;
}

absl::StatusOr<std::unique_ptr<SqlStore>> SqlStore::OnDatabase(std::unique_ptr<SqlDatabase> db) {
  std::unique_ptr<SqlStore> store(new SqlStore());
  store->db_ = std::move(db);
  SqlDatabase* database = store->db_.get();
  KV_ASSIGN_OR_RETURN(store->jobs_, SqlJobStore::Create(database));
  KV_ASSIGN_OR_RETURN(store->events_, SqlEventLog::Create(database));
  KV_ASSIGN_OR_RETURN(store->agents_, SqlAgentStore::Create(database));
  KV_ASSIGN_OR_RETURN(store->schedules_, SqlScheduleStore::Create(database));
  store->regressions_ = std::make_unique<SqlRegressionStore>(database);
  return store;
}

}  // namespace kvbench::controller
