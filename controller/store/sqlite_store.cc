#include "controller/store/sqlite_store.h"

#include <utility>

#include "common/status/status_macros.h"

namespace kvbench::controller {

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path) {
  std::unique_ptr<SqliteStore> store(new SqliteStore());
  KV_ASSIGN_OR_RETURN(store->db_, SqliteDatabase::Open(path));
  SqliteDatabase* db = store->db_.get();
  KV_ASSIGN_OR_RETURN(store->jobs_, SqliteJobStore::Create(db));
  KV_ASSIGN_OR_RETURN(store->events_, SqliteEventLog::Create(db));
  KV_ASSIGN_OR_RETURN(store->agents_, SqliteAgentStore::Create(db));
  KV_ASSIGN_OR_RETURN(store->schedules_, SqliteScheduleStore::Create(db));
  store->regressions_ = std::make_unique<SqliteRegressionStore>(db);
  return store;
}

}  // namespace kvbench::controller
