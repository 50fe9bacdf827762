#include "controller/store/sqlite_statement.h"

#include "absl/strings/str_cat.h"

namespace kvbench::controller {

absl::Status SqliteError(sqlite3* db, int rc, absl::string_view what) {
  std::string message = absl::StrCat(what, ": ", sqlite3_errstr(rc));
  if (db != nullptr && sqlite3_errcode(db) == rc) {
    absl::StrAppend(&message, " (", sqlite3_errmsg(db), ")");
  }
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return absl::DataLossError(message);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
    case SQLITE_IOERR:
      return absl::UnavailableError(message);
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
      return absl::FailedPreconditionError(message);
    case SQLITE_CONSTRAINT:
      return absl::AlreadyExistsError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::StatusOr<std::unique_ptr<SqliteStatement>> SqliteStatement::Prepare(sqlite3* db,
                                                                          absl::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return SqliteError(db, rc, absl::StrCat("preparing `", sql, "`"));
  }
  return std::unique_ptr<SqliteStatement>(new SqliteStatement(db, stmt));
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

void SqliteStatement::BindInt(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }

void SqliteStatement::BindText(int index, absl::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
}

void SqliteStatement::BindBlob(int index, absl::string_view value) {
  // A zero-length blob must still be a blob, not NULL: pass a non-null pointer.
  sqlite3_bind_blob(stmt_, index, value.empty() ? "" : value.data(), static_cast<int>(value.size()),
                    SQLITE_TRANSIENT);
}

absl::StatusOr<bool> SqliteStatement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(db_, rc, absl::StrCat("running `", sqlite3_sql(stmt_), "`"));
}

absl::Status SqliteStatement::Run() {
  absl::Status status;
  while (true) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) {
      status = row.status();
      break;
    }
    if (!*row) break;
  }
  Reset();
  return status;
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t SqliteStatement::ColumnInt(int index) { return sqlite3_column_int64(stmt_, index); }

bool SqliteStatement::ColumnIsNull(int index) {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

std::string SqliteStatement::ColumnText(int index) {
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, index)));
}

std::string SqliteStatement::ColumnBlob(int index) {
  const void* blob = sqlite3_column_blob(stmt_, index);
  if (blob == nullptr) return "";
  return std::string(static_cast<const char*>(blob),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, index)));
}

}  // namespace kvbench::controller
