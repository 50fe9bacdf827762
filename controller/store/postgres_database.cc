#include "controller/store/postgres_database.h"

#include <unistd.h>

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "controller/store/postgres_schema.h"
#include "controller/store/postgres_statement.h"

namespace kvbench::controller {
namespace {

// Defaults a DSN may override: a connect that never answers must not hang the controller's
// start or a call after the server went away.
constexpr char kConnectTimeoutSeconds[] = "10";
// The writer lock: pg_advisory_lock(int4, int4) keys, scoped to the database.
constexpr int kWriterLockClass = 0x6b766263;  // "kvbc"
constexpr int kWriterLockObject = 1;

// What pg_stat_activity shows of this session: who holds the writer lock, for the one refused.
std::string ApplicationName() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return absl::StrCat("kvbench pid ", getpid(), " on ", host).substr(0, 63);
}

}  // namespace

std::string DescribePostgresDsn(const std::string& dsn) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(dsn.c_str(), &error);
  if (options == nullptr) {
    if (error != nullptr) PQfreemem(error);
    return "postgresql (unparsable connection string)";
  }
  std::string host = "localhost", port = "5432", dbname, user;
  for (PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    if (option->val == nullptr) continue;
    std::string keyword = option->keyword;
    if (keyword == "host") host = option->val;
    if (keyword == "port") port = option->val;
    if (keyword == "dbname") dbname = option->val;
    if (keyword == "user") user = option->val;
  }
  PQconninfoFree(options);
  if (dbname.empty()) dbname = user;
  return absl::StrCat("postgresql://", user.empty() ? "" : absl::StrCat(user, "@"), host, ":", port,
                      "/", dbname);
}

absl::StatusOr<std::unique_ptr<PostgresDatabase>> PostgresDatabase::Open(const std::string& dsn) {
  const std::string name = DescribePostgresDsn(dsn);
  // Defaults first: the DSN, expanded in place of dbname, overrides them.
  const std::string application_name = ApplicationName();
  const char* keywords[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {kConnectTimeoutSeconds, application_name.c_str(), dsn.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr)
    return absl::ResourceExhaustedError(absl::StrCat("store ", name, ": no memory"));
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    PQfinish(conn);
    while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
      message.pop_back();
    // A refused password or an unknown database will not fix itself; an unreachable server may.
    const bool refused = message.find("authentication") != std::string::npos ||
                         message.find("does not exist") != std::string::npos ||
                         message.find("permission denied") != std::string::npos;
    std::string text = absl::StrCat("store ", name, ": connecting: ", message);
    return refused ? absl::FailedPreconditionError(text) : absl::UnavailableError(text);
  }
  std::unique_ptr<PostgresDatabase> database(new PostgresDatabase(name, conn));
  absl::MutexLock lock(&database->mu());
  KV_RETURN_IF_ERROR(database->SetUpSession());
  KV_RETURN_IF_ERROR(database->CreateSchemaIfMissing());
  KV_RETURN_IF_ERROR(database->TakeWriterLock());
  return database;
}

PostgresDatabase::PostgresDatabase(std::string name, PGconn* conn)
    : SqlDatabase(std::move(name)), conn_(conn) {}

PostgresDatabase::~PostgresDatabase() { PQfinish(conn_); }

absl::Status PostgresDatabase::Exec(const char* sql) {
  PGresult* result = PQexec(conn_, sql);
  const ExecStatusType status = PQresultStatus(result);
  absl::Status outcome =
      status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK
          ? absl::OkStatus()
          : PostgresError(conn_, result, Where(absl::StrCat("running `", sql, "`")));
  PQclear(result);
  return outcome;
}

absl::Status PostgresDatabase::SetUpSession() {
  // Notices ("relation ... already exists, skipping") are not the controller's log's business.
  KV_RETURN_IF_ERROR(Exec("SET client_min_messages = warning"));
  return Exec("SET synchronous_commit = on");
}

absl::Status PostgresDatabase::CreateSchemaIfMissing() {
  // One controller at a time creates or checks the schema: the others wait on the lock, then
  // find it made.
  return InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu()) -> absl::Status {
    KV_RETURN_IF_ERROR(Exec(
        absl::StrCat("SELECT pg_advisory_xact_lock(", sql::kPostgresSchemaLockKey, ")").c_str()));
    KV_RETURN_IF_ERROR(Exec(sql::kPostgresSchemaVersionTable));
    KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStatement> version,
                        PrepareOnce("SELECT COALESCE(MAX(version), 0) FROM kvbench_schema"));
    KV_ASSIGN_OR_RETURN(bool has_row, version->Step());
    const int64_t found = has_row ? version->ColumnInt(0) : 0;
    version.reset();
    if (found == sql::kPostgresSchemaVersion) return absl::OkStatus();
    if (found != 0) {
      return absl::FailedPreconditionError(
          Where(absl::StrCat("schema version ", found, " is not the supported version ",
                             sql::kPostgresSchemaVersion, " (written by a newer kvbench?)")));
    }
    KV_RETURN_IF_ERROR(Exec(sql::kPostgresSchemaV3));
    return Exec(absl::StrCat("INSERT INTO kvbench_schema (version) VALUES (",
                             sql::kPostgresSchemaVersion, ")")
                    .c_str());
  });
}

absl::Status PostgresDatabase::TakeWriterLock() {
  KV_RETURN_IF_ERROR(Exec(
      absl::StrCat("SET lock_timeout = ", absl::ToInt64Milliseconds(kWriterLockWait)).c_str()));
  absl::Status locked =
      Exec(absl::StrCat("SELECT pg_advisory_lock(", kWriterLockClass, ", ", kWriterLockObject, ")")
               .c_str());
  KV_RETURN_IF_ERROR(Exec("SET lock_timeout = 0"));
  if (locked.ok()) return absl::OkStatus();
  if (!absl::IsUnavailable(locked) || PQstatus(conn_) != CONNECTION_OK) return locked;
  return absl::FailedPreconditionError(
      Where(absl::StrCat("another controller writes to this database (", WriterLockHolder(),
                         "): one controller per database")));
}

std::string PostgresDatabase::WriterLockHolder() {
  absl::StatusOr<std::unique_ptr<SqlStatement>> select = PrepareOnce(absl::StrCat(
      "SELECT a.application_name, COALESCE(host(a.client_addr), 'a local socket'), "
      "to_char(a.backend_start, 'YYYY-MM-DD HH24:MI:SS TZ') FROM pg_locks l JOIN "
      "pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND "
      "l.classid = ",
      kWriterLockClass, " AND l.objid = ", kWriterLockObject,
      " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"));
  if (!select.ok() || !(*select)->Step().value_or(false)) return "a session that has since ended";
  return absl::StrCat((*select)->ColumnText(0), " from ", (*select)->ColumnText(1), " since ",
                      (*select)->ColumnText(2));
}

absl::StatusOr<PGconn*> PostgresDatabase::Connection() {
  KV_RETURN_IF_ERROR(writer_lock_lost_);
  if (PQstatus(conn_) == CONNECTION_OK) return conn_;
  if (in_transaction_) {
    return absl::UnavailableError(Where("the connection was lost inside a transaction"));
  }
  PQreset(conn_);
  if (PQstatus(conn_) != CONNECTION_OK) {
    return absl::UnavailableError(Where(
        absl::StrCat("reconnecting: ", absl::StripTrailingAsciiWhitespace(PQerrorMessage(conn_)))));
  }
  ++generation_;
  KV_RETURN_IF_ERROR(SetUpSession());
  absl::Status relocked = TakeWriterLock();
  if (absl::IsFailedPrecondition(relocked)) writer_lock_lost_ = relocked;
  KV_RETURN_IF_ERROR(relocked);
  return conn_;
}

absl::Status PostgresDatabase::Prepare(std::unique_ptr<SqlStatement>& into, absl::string_view sql) {
  into = std::make_unique<PostgresStatement>(this, absl::StrCat("kv", next_statement_++), sql);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SqlStatement>> PostgresDatabase::PrepareOnce(absl::string_view sql) {
  return std::unique_ptr<SqlStatement>(std::make_unique<PostgresStatement>(this, "", sql));
}

absl::Status PostgresDatabase::InTransaction(absl::FunctionRef<absl::Status()> body) {
  KV_RETURN_IF_ERROR(Connection().status());
  KV_RETURN_IF_ERROR(Exec("BEGIN"));
  in_transaction_ = true;
  absl::Status status = body();
  if (status.ok()) status = Exec("COMMIT");
  if (!status.ok()) Exec("ROLLBACK").IgnoreError();
  in_transaction_ = false;
  return status;
}

}  // namespace kvbench::controller
