#include "controller/store/sqlite_database.h"

#include <utility>

#include "common/log/logging.h"
#include "common/status/status_macros.h"
#include "controller/store/sqlite_schema.h"

namespace kvbench::controller {

absl::StatusOr<std::unique_ptr<SqliteDatabase>> SqliteDatabase::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status = SqliteError(db, rc, absl::StrCat("store ", path, ": opening"));
    sqlite3_close(db);
    return status;
  }
  std::unique_ptr<SqliteDatabase> database(new SqliteDatabase(path, db));
  KV_RETURN_IF_ERROR(database->Init());
  return database;
}

SqliteDatabase::SqliteDatabase(std::string path, sqlite3* db)
    : SqlDatabase(path), path_(std::move(path)), db_(db) {}

SqliteDatabase::~SqliteDatabase() {
  absl::MutexLock lock(&mu());
  begin_.reset();  // finalized before the connection closes
  commit_.reset();
  rollback_.reset();
  sqlite3_close(db_);
}

absl::Status SqliteDatabase::Exec(const char* sql) {
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, Where(absl::StrCat("running `", sql, "`")));
  return absl::OkStatus();
}

absl::Status SqliteDatabase::Init() {
  absl::MutexLock lock(&mu());
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, static_cast<int>(absl::ToInt64Milliseconds(kBusyTimeout)));
  // The first statement reads the file header: a file that is not a database fails here.
  KV_RETURN_IF_ERROR(Exec("PRAGMA journal_mode = WAL"));
  KV_RETURN_IF_ERROR(Exec("PRAGMA synchronous = FULL"));
  KV_RETURN_IF_ERROR(CreateSchemaIfMissing());
  KV_RETURN_IF_ERROR(Prepare(begin_, sql::kBegin));
  KV_RETURN_IF_ERROR(Prepare(commit_, sql::kCommit));
  return Prepare(rollback_, sql::kRollback);
}

absl::Status SqliteDatabase::CreateSchemaIfMissing() {
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStatement> version,
                      SqliteStatement::Prepare(db_, "PRAGMA user_version"));
  KV_ASSIGN_OR_RETURN(bool has_row, version->Step());
  int64_t found = has_row ? version->ColumnInt(0) : 0;
  version.reset();
  if (found == kSqliteSchemaVersion) return absl::OkStatus();
  if (found < 0 || found > kSqliteSchemaVersion) {
    return absl::FailedPreconditionError(
        Where(absl::StrCat("schema version ", found, " is not the supported version ",
                           kSqliteSchemaVersion, " (written by a newer kvbench?)")));
  }
  // A new file gets version 1 and then the upgrades; an older file (kvbench before schedules, or
  // before regressions) only the upgrades it lacks, in one transaction: its jobs and events stay
  // as they are.
  KV_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  absl::Status status = found == 0 ? Exec(sql::kSchemaV1) : absl::OkStatus();
  if (status.ok() && found < 2) status = Exec(sql::kSchemaV2Upgrade);
  if (status.ok()) status = Exec(sql::kSchemaV3Upgrade);
  if (!status.ok()) {
    Exec("ROLLBACK").IgnoreError();
    return status;
  }
  if (found > 0) {
    KV_LOG(INFO) << "store upgraded from schema version " << found << " to " << kSqliteSchemaVersion
                 << " path=" << path_;
  }
  return Exec("COMMIT");
}

absl::Status SqliteDatabase::Prepare(std::unique_ptr<SqlStatement>& into, absl::string_view sql) {
  KV_ASSIGN_OR_RETURN(into, PrepareOnce(sql));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SqlStatement>> SqliteDatabase::PrepareOnce(absl::string_view sql) {
  absl::StatusOr<std::unique_ptr<SqliteStatement>> prepared = SqliteStatement::Prepare(db_, sql);
  if (!prepared.ok())
    return absl::Status(prepared.status().code(), Where(prepared.status().message()));
  return std::unique_ptr<SqlStatement>(*std::move(prepared));
}

absl::Status SqliteDatabase::InTransaction(absl::FunctionRef<absl::Status()> body) {
  KV_RETURN_IF_ERROR(begin_->Run());
  absl::Status status = body();
  if (status.ok()) status = commit_->Run();
  if (!status.ok()) rollback_->Run().IgnoreError();
  return status;
}

int64_t SqliteDatabase::Changes() { return sqlite3_changes(db_); }

}  // namespace kvbench::controller
