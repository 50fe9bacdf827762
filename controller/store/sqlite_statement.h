#pragma once

// A thin owner of one prepared SQLite statement (the SqlStatement of sqlite_database.h), and the
// mapping of SQLite result codes to absl::Status. Not thread-safe: the store uses it under
// SqlDatabase::mu().

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/store/sql_statement.h"

namespace kvbench::controller {

// A Status for SQLite result code `rc` on `db` (may be null), saying what was being done.
// SQLITE_NOTADB/CORRUPT -> DATA_LOSS, BUSY/LOCKED -> UNAVAILABLE, CANTOPEN/PERM/READONLY ->
// FAILED_PRECONDITION, CONSTRAINT -> ALREADY_EXISTS, FULL/IOERR -> UNAVAILABLE, else INTERNAL.
absl::Status SqliteError(sqlite3* db, int rc, absl::string_view what);

class SqliteStatement : public SqlStatement {
 public:
  static absl::StatusOr<std::unique_ptr<SqliteStatement>> Prepare(sqlite3* db,
                                                                  absl::string_view sql);
  ~SqliteStatement() override;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Parameters are 1-based, as in SQLite. Text and blobs are copied.
  void BindInt(int index, int64_t value) override;
  void BindText(int index, absl::string_view value) override;
  void BindBlob(int index, absl::string_view value) override;

  // Advances: true when a row is ready for the Column* getters, false when done.
  absl::StatusOr<bool> Step() override;
  // Steps until done (for statements returning no rows) and resets.
  absl::Status Run() override;
  // Ready for new bindings; releases any read snapshot the statement holds.
  void Reset() override;

  // Columns are 0-based, as in SQLite.
  int64_t ColumnInt(int index) override;
  bool ColumnIsNull(int index) override;
  std::string ColumnText(int index) override;
  std::string ColumnBlob(int index) override;

 private:
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}

  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

}  // namespace kvbench::controller
