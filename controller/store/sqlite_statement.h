#pragma once

// A thin owner of one prepared SQLite statement, and the mapping of SQLite result codes to
// absl::Status. Not thread-safe: the store uses it under SqliteDatabase::mu().

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench::controller {

// A Status for SQLite result code `rc` on `db` (may be null), saying what was being done.
// SQLITE_NOTADB/CORRUPT -> DATA_LOSS, BUSY/LOCKED -> UNAVAILABLE, CANTOPEN/PERM/READONLY ->
// FAILED_PRECONDITION, CONSTRAINT -> ALREADY_EXISTS, FULL/IOERR -> UNAVAILABLE, else INTERNAL.
absl::Status SqliteError(sqlite3* db, int rc, absl::string_view what);

class SqliteStatement {
 public:
  static absl::StatusOr<std::unique_ptr<SqliteStatement>> Prepare(sqlite3* db,
                                                                  absl::string_view sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Parameters are 1-based, as in SQLite. Text and blobs are copied.
  void BindInt(int index, int64_t value);
  void BindText(int index, absl::string_view value);
  void BindBlob(int index, absl::string_view value);

  // Advances: true when a row is ready for the Column* getters, false when done.
  absl::StatusOr<bool> Step();
  // Steps until done (for statements returning no rows) and resets.
  absl::Status Run();
  // Ready for new bindings; releases any read snapshot the statement holds.
  void Reset();

  // Columns are 0-based, as in SQLite.
  int64_t ColumnInt(int index);
  bool ColumnIsNull(int index);
  std::string ColumnText(int index);
  std::string ColumnBlob(int index);

 private:
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}

  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

// Resets a statement when it leaves scope, whatever path the caller returns by.
class ScopedStatement {
 public:
  explicit ScopedStatement(SqliteStatement& statement) : statement_(statement) {
    statement_.Reset();
  }
  ~ScopedStatement() { statement_.Reset(); }
  ScopedStatement(const ScopedStatement&) = delete;
  ScopedStatement& operator=(const ScopedStatement&) = delete;
  SqliteStatement* operator->() { return &statement_; }

 private:
  SqliteStatement& statement_;
};

}  // namespace kvbench::controller
