#pragma once

// The database the store's tables share, whatever the engine (sqlite_database.h,
// postgres_database.h): one connection used under one mutex, statement preparation, transactions.
// The tables (sql_*_store.h, sql_event_log.h) keep their own prepared statements and hold mu()
// around every use of the connection and of its statements, so calls on any table are serialized.
//
// Errors map to absl codes the same way on both engines: a broken or busy connection, a full
// disk -> UNAVAILABLE; a unique key taken -> ALREADY_EXISTS; a file or row that does not read
// back -> DATA_LOSS; a schema newer than this code -> FAILED_PRECONDITION. Every message names
// the database (Where).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "controller/store/sql_statement.h"

namespace kvbench::controller {

class SqlDatabase {
 public:
  virtual ~SqlDatabase() = default;
  SqlDatabase(const SqlDatabase&) = delete;
  SqlDatabase& operator=(const SqlDatabase&) = delete;

  // Held by a table for every use of the connection and of its statements.
  absl::Mutex& mu() ABSL_LOCK_RETURNED(mu_) { return mu_; }

  // Prepares `sql` (written with ?N parameters, sql_statements.h) into `into`; the error names
  // the database.
  virtual absl::Status Prepare(std::unique_ptr<SqlStatement>& into, absl::string_view sql)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;
  // Prepares `sql` for one use (statements of rarely used tables).
  virtual absl::StatusOr<std::unique_ptr<SqlStatement>> PrepareOnce(absl::string_view sql)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;
  // Runs `body` in one transaction: committed if it returns OK, rolled back otherwise.
  virtual absl::Status InTransaction(absl::FunctionRef<absl::Status()> body)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;
  // Rows the last INSERT, UPDATE or DELETE changed.
  virtual int64_t Changes() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;

  // `what` prefixed with the database's name, for the errors the tables return.
  std::string Where(absl::string_view what) const {
    return absl::StrCat("store ", name_, ": ", what);
  }

 protected:
  // `name` says which database in messages: a file's path, or PostgreSQL's host/port/dbname
  // (never a password).
  explicit SqlDatabase(std::string name) : name_(std::move(name)) {}

 private:
  const std::string name_;
  absl::Mutex mu_;
};

}  // namespace kvbench::controller
