#pragma once

// The store's database on a PostgreSQL server (the SqlDatabase of sql_database.h), through libpq:
// one connection, the schema (postgres_schema.h) created or checked at open, transactions and
// statements (postgres_statement.h).
//
// Durability: every session runs with synchronous_commit = on, so a transaction that committed
// (and an event the controller then acknowledged) has reached the server's WAL on disk, as
// SQLite's synchronous=FULL gives on a file.
//
// A lost connection (the server restarted, a network cut) fails the call in flight with
// UNAVAILABLE; the next call reconnects (statements are prepared again on the new session). A
// transaction cut off before its COMMIT answered may or may not have committed: every write the
// controller retries is keyed (events by agent and seq, jobs by request id, fires by key), so a
// retry stores it once.
//
// One writer per database: the connection holds a session advisory lock for its whole life, taken
// at open (waiting up to kWriterLockWait for a predecessor's session to end, as after a kill -9)
// and again after each reconnect. A second controller on the same database is refused, naming
// the first; a controller that lost the lock across a reconnect (another took it meanwhile)
// writes nothing more: every call fails with FAILED_PRECONDITION.
//
// Thread-safety: one connection guarded by SqlDatabase::mu(); calls are serialized.

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "controller/store/sql_database.h"

namespace kvbench::controller {

// How long Open and a reconnect wait for the writer lock another session holds.
inline constexpr absl::Duration kWriterLockWait = absl::Seconds(5);

class PostgresDatabase : public SqlDatabase {
 public:
  // Connects with the libpq connection string `dsn` ("host=... port=... dbname=... user=...", or
  // a postgresql:// URI; libpq's environment variables and ~/.pgpass apply) and creates the
  // schema if the database has none. UNAVAILABLE when the server cannot be reached;
  // FAILED_PRECONDITION when it refuses us or the schema is newer than this code. Messages name
  // the server and database, never a password.
  static absl::StatusOr<std::unique_ptr<PostgresDatabase>> Open(const std::string& dsn);
  ~PostgresDatabase() override;

  absl::Status Prepare(std::unique_ptr<SqlStatement>& into, absl::string_view sql) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  absl::StatusOr<std::unique_ptr<SqlStatement>> PrepareOnce(absl::string_view sql) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  absl::Status InTransaction(absl::FunctionRef<absl::Status()> body) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  int64_t Changes() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu()) { return changes_; }

  // For statements: the connection, reconnected first if it broke outside a transaction (each
  // reconnect starts a new generation: named statements must be prepared again).
  absl::StatusOr<PGconn*> Connection() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  int64_t generation() const { return generation_; }
  void set_changes(int64_t changes) { changes_ = changes; }

 private:
  PostgresDatabase(std::string name, PGconn* conn);

  // Runs `sql` (any number of statements, no parameters) with the simple query protocol.
  absl::Status Exec(const char* sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  // What every new session sets.
  absl::Status SetUpSession() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  absl::Status CreateSchemaIfMissing() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  // Takes the writer lock, waiting up to kWriterLockWait; FAILED_PRECONDITION naming the
  // session that holds it.
  absl::Status TakeWriterLock() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  // "application_name from address since time" of the session holding the writer lock.
  std::string WriterLockHolder() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());

  PGconn* const conn_;
  int64_t generation_ = 0;
  int64_t changes_ = 0;
  int64_t next_statement_ = 0;
  bool in_transaction_ = false;
  absl::Status writer_lock_lost_;  // once not OK, every call fails with it
};

// "postgresql://USER@HOST:PORT/DBNAME" from a libpq connection string, for messages: never the
// password, whatever the string holds.
std::string DescribePostgresDsn(const std::string& dsn);

}  // namespace kvbench::controller
