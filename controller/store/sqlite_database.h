#pragma once

// The store's database on one SQLite file (the SqlDatabase of sql_database.h): the connection,
// the schema and its upgrades (sqlite_schema.h), transactions and statement preparation.
//
// Durability: the database runs in WAL mode with synchronous=FULL, so every committed
// transaction has been fsync'ed to the WAL before the call returns. An event or result that
// AppendEvent/PutResult returned OK for (and that the controller then acknowledged, letting the
// agent drop it from its spool) survives both a kill -9 of the controller and a power loss or
// kernel crash. synchronous=NORMAL would survive kill -9 only: the last commits could vanish on
// power loss, and the agent would never resend them. The cost is one fsync per write call, well
// within the event rate of a few agents; batch writes in one call if that ever matters.
//
// Thread-safety: one connection guarded by one mutex; calls are serialized. One database per file
// per process; a second process opening the same file waits up to kBusyTimeout for locks and then
// gets UNAVAILABLE.

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/store/sql_database.h"
#include "controller/store/sqlite_statement.h"

namespace kvbench::controller {

// The schema this code writes, kept in PRAGMA user_version. A newer file is refused.
inline constexpr int kSqliteSchemaVersion = 3;
// How long a statement waits for a lock held by another connection before UNAVAILABLE.
inline constexpr absl::Duration kBusyTimeout = absl::Seconds(5);

class SqliteDatabase : public SqlDatabase {
 public:
  // Opens (creating if missing) the database at `path` and creates or upgrades the schema.
  // DATA_LOSS when the file is not an SQLite database or is corrupt; FAILED_PRECONDITION when it
  // cannot be opened or has a newer schema. Every message names the path.
  static absl::StatusOr<std::unique_ptr<SqliteDatabase>> Open(const std::string& path);
  // Every statement prepared on it must have been destroyed before.
  ~SqliteDatabase() override;

  absl::Status Prepare(std::unique_ptr<SqlStatement>& into, absl::string_view sql) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  absl::StatusOr<std::unique_ptr<SqlStatement>> PrepareOnce(absl::string_view sql) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  // Between BEGIN IMMEDIATE and COMMIT.
  absl::Status InTransaction(absl::FunctionRef<absl::Status()> body) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  int64_t Changes() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());

 private:
  SqliteDatabase(std::string path, sqlite3* db);

  absl::Status Init();
  absl::Status Exec(const char* sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  absl::Status CreateSchemaIfMissing() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());

  const std::string path_;
  sqlite3* const db_;  // the connection; used under mu()
  std::unique_ptr<SqlStatement> begin_ ABSL_GUARDED_BY(mu());
  std::unique_ptr<SqlStatement> commit_ ABSL_GUARDED_BY(mu());
  std::unique_ptr<SqlStatement> rollback_ ABSL_GUARDED_BY(mu());
};

}  // namespace kvbench::controller
