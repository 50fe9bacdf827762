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
    const std::string message(absl::StripTrailingAsciiWhitespace(PQerrorMessage(conn)));
    PQfinish(conn);
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
  // The store never leaves a transaction idle: one that is belongs to a process stopped mid-way
  // (SIGSTOP, a frozen VM), and its row locks would hold off a standby's takeover of the lease.
  KV_RETURN_IF_ERROR(Exec(absl::StrCat("SET idle_in_transaction_session_timeout = ",
                                       absl::ToInt64Milliseconds(kIdleTransactionTimeout))
                              .c_str()));
  return Exec("SET synchronous_commit = on");
}

absl::Status PostgresDatabase::CreateSchemaIfMissing() {
  // One controller at a time creates or checks the schema: the others wait on the lock, then
  // find it made.
  return InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu()) -> absl::Status {
    KV_RETURN_IF_ERROR(Exec(
        absl::StrCat("SELECT pg_advisory_xact_lock(", sql::kPostgresSchemaLockKey, ")").c_str()));
    KV_RETURN_IF_ERROR(Exec(sql::kPostgresSchemaVersionTable));
    KV_RETURN_IF_ERROR(Exec(sql::kPostgresLeaseTable));
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

absl::StatusOr<PGconn*> PostgresDatabase::Connection() {
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
  absl::Status status = term_.load() != 0 ? CheckFence() : absl::OkStatus();
  if (status.ok()) status = body();
  if (status.ok()) status = Exec("COMMIT");
  if (!status.ok()) Exec("ROLLBACK").IgnoreError();
  in_transaction_ = false;
  return status;
}

}  // namespace kvbench::controller

namespace kvbench::controller {

absl::StatusOr<LeaderRecord> PostgresDatabase::ReadLease(bool lock) {
  KV_ASSIGN_OR_RETURN(
      std::unique_ptr<SqlStatement> select,
      PrepareOnce(absl::StrCat("SELECT term, holder, address, "
                               "(EXTRACT(EPOCH FROM expires_at) * 1000)::BIGINT, "
                               "(expires_at <= now())::INT FROM kvbench_leader WHERE id = 1",
                               lock ? " FOR SHARE" : "")));
  LeaderRecord record;
  KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
  if (!has_row) return record;
  record.term = select->ColumnInt(0);
  record.holder = select->ColumnText(1);
  record.address = select->ColumnText(2);
  record.expires = absl::FromUnixMillis(select->ColumnInt(3));
  record.expired = select->ColumnInt(4) != 0;
  return record;
}

absl::Status PostgresDatabase::CheckFence() {
  KV_ASSIGN_OR_RETURN(LeaderRecord lease, ReadLease(/*lock=*/true));
  if (lease.term == term_.load()) return absl::OkStatus();
  return absl::FailedPreconditionError(Where(absl::StrCat(
      "this controller's lease (term ", term_.load(), ") was taken over: the leader is now ",
      lease.holder, " at ", lease.address, " (term ", lease.term, "); nothing written")));
}

absl::StatusOr<bool> PostgresDatabase::TryLead(const std::string& holder,
                                               const std::string& address, absl::Duration lease,
                                               LeaderRecord* current) {
  absl::MutexLock lock(&mu());
  bool led = false;
  LeaderRecord record;
  const int64_t lease_ms = absl::ToInt64Milliseconds(lease);
  absl::Status taken = InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu()) -> absl::Status {
    // The row exists from the first try on: a takeover is then one UPDATE, which waits for the
    // old leader's fenced writes in flight (they hold the row FOR SHARE).
    KV_RETURN_IF_ERROR(
        Exec("INSERT INTO kvbench_leader (id, term, holder, address, expires_at) "
             "VALUES (1, 0, '', '', now()) ON CONFLICT (id) DO NOTHING"));
    KV_ASSIGN_OR_RETURN(
        std::unique_ptr<SqlStatement> take,
        PrepareOnce("UPDATE kvbench_leader SET term = term + 1, holder = ?1, address = ?2, "
                    "expires_at = now() + ?3 * INTERVAL '1 millisecond' "
                    "WHERE id = 1 AND expires_at <= now()"));
    take->BindText(1, holder);
    take->BindText(2, address);
    take->BindInt(3, lease_ms);
    KV_RETURN_IF_ERROR(take->Run());
    led = Changes() == 1;
    KV_ASSIGN_OR_RETURN(record, ReadLease(/*lock=*/false));
    return absl::OkStatus();
  });
  KV_RETURN_IF_ERROR(taken);
  if (led) term_.store(record.term);
  if (current != nullptr) *current = record;
  return led;
}

absl::Status PostgresDatabase::Renew(absl::Duration lease, const std::string& address) {
  absl::MutexLock lock(&mu());
  if (term_.load() == 0)
    return absl::FailedPreconditionError(Where("not leading: nothing to renew"));
  KV_ASSIGN_OR_RETURN(
      std::unique_ptr<SqlStatement> renew,
      PrepareOnce(
          "UPDATE kvbench_leader SET expires_at = now() + ?2 * INTERVAL '1 millisecond', "
          "address = CASE WHEN ?3 = '' THEN address ELSE ?3 END WHERE id = 1 AND term = ?1"));
  renew->BindInt(1, term_.load());
  renew->BindInt(2, absl::ToInt64Milliseconds(lease));
  renew->BindText(3, address);
  // Fenced like any write: a term that moved on fails here, naming the new leader.
  return InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu()) { return renew->Run(); });
}

absl::Status PostgresDatabase::StepDown() {
  absl::MutexLock lock(&mu());
  if (term_.load() == 0) return absl::OkStatus();
  KV_ASSIGN_OR_RETURN(
      std::unique_ptr<SqlStatement> end,
      PrepareOnce("UPDATE kvbench_leader SET expires_at = now() WHERE id = 1 AND term = ?1"));
  end->BindInt(1, term_.load());
  absl::Status ended =
      InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu()) { return end->Run(); });
  term_.store(0);
  return ended;
}

}  // namespace kvbench::controller
