#pragma once

// One SQLite file shared by the store's tables: the connection, the schema and its upgrades, the
// one mutex, transactions and statement preparation. The tables (sqlite_*_store.h,
// sqlite_event_log.h) keep their own prepared statements and hold mu() around every use of the
// connection.
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
#include "controller/store/sqlite_statement.h"

namespace kvbench::controller {

// The schema this code writes, kept in PRAGMA user_version. A newer file is refused.
inline constexpr int kSqliteSchemaVersion = 3;
// How long a statement waits for a lock held by another connection before UNAVAILABLE.
inline constexpr absl::Duration kBusyTimeout = absl::Seconds(5);

class SqliteDatabase {
 public:
  // Opens (creating if missing) the database at `path` and creates or upgrades the schema.
  // DATA_LOSS when the file is not an SQLite database or is corrupt; FAILED_PRECONDITION when it
  // cannot be opened or has a newer schema. Every message names the path.
  static absl::StatusOr<std::unique_ptr<SqliteDatabase>> Open(const std::string& path);
  // Every statement prepared on it must have been destroyed before.
  ~SqliteDatabase();
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  // Held by a table for every use of the connection and of its statements.
  absl::Mutex& mu() ABSL_LOCK_RETURNED(mu_) { return mu_; }

  // Prepares `sql` into `into`; the error names the path.
  absl::Status Prepare(std::unique_ptr<SqliteStatement>& into, absl::string_view sql)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Prepares `sql` for one use (statements of rarely used tables).
  absl::StatusOr<std::unique_ptr<SqliteStatement>> PrepareOnce(absl::string_view sql)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs `body` between BEGIN IMMEDIATE and COMMIT; rolls back if it fails.
  absl::Status InTransaction(absl::FunctionRef<absl::Status()> body)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rows the last INSERT, UPDATE or DELETE changed.
  int64_t Changes() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // `what` prefixed with the database's path, for the errors the tables return.
  std::string Where(absl::string_view what) const {
    return absl::StrCat("store ", path_, ": ", what);
  }

 private:
  SqliteDatabase(std::string path, sqlite3* db);

  absl::Status Init();
  absl::Status Exec(const char* sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CreateSchemaIfMissing() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  absl::Mutex mu_;
  sqlite3* const db_;  // the connection; used under mu_
  std::unique_ptr<SqliteStatement> begin_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<SqliteStatement> commit_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<SqliteStatement> rollback_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kvbench::controller
