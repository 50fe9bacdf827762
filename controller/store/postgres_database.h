#pragma once

// The store's database on a PostgreSQL server (the SqlDatabase of sql_database.h), through libpq:
// one connection, the schema (postgres_schema.h) created or checked at open, transactions and
// statements (postgres_statement.h), and the leader lease of controllers that share it
// (leadership.h).
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
// Fencing: once TryLead took the lease, every write runs in a transaction that first reads the
// lease row FOR SHARE and checks its term is still this one's. A takeover (an UPDATE of that
// row) waits for such a transaction to end, so no write of an old leader commits after a new
// leader took over; after it, every write fails with FAILED_PRECONDITION naming the new leader.
// Without TryLead (tests, benchmarks) writes are not fenced.
//
// Thread-safety: one connection guarded by SqlDatabase::mu(); calls are serialized.

#include <libpq-fe.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "controller/store/leadership.h"
#include "controller/store/sql_database.h"

namespace kvbench::controller {

// How long the server lets a session of ours sit idle inside a transaction before it ends the
// session (releasing its locks): the store runs a transaction's statements back to back.
inline constexpr absl::Duration kIdleTransactionTimeout = absl::Seconds(5);

class PostgresDatabase : public SqlDatabase, public Leadership {
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
  // With a lease held, checks its term first (fencing).
  absl::Status InTransaction(absl::FunctionRef<absl::Status()> body) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  int64_t Changes() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu()) { return changes_; }

  absl::StatusOr<bool> TryLead(const std::string& holder, const std::string& address,
                               absl::Duration lease, LeaderRecord* current) override;
  absl::Status Renew(absl::Duration lease, const std::string& address = "") override;
  absl::Status StepDown() override;
  int64_t term() const override { return term_.load(); }

  // For statements: the connection, reconnected first if it broke outside a transaction (each
  // reconnect starts a new generation: named statements must be prepared again).
  absl::StatusOr<PGconn*> Connection() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  int64_t generation() const { return generation_; }
  void set_changes(int64_t changes) { changes_ = changes; }
  // Whether a write outside a transaction must be wrapped in one for its fence.
  bool NeedsFence() const { return term_.load() != 0 && !in_transaction_; }

 private:
  PostgresDatabase(std::string name, PGconn* conn);

  // Runs `sql` (any number of statements, no parameters) with the simple query protocol.
  absl::Status Exec(const char* sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  // What every new session sets.
  absl::Status SetUpSession() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  absl::Status CreateSchemaIfMissing() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  // The lease row as it stands (FOR SHARE inside a transaction when `lock`).
  absl::StatusOr<LeaderRecord> ReadLease(bool lock) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());
  // OK while the lease row still carries term_; FAILED_PRECONDITION naming the new leader.
  absl::Status CheckFence() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu());

  PGconn* const conn_;
  int64_t generation_ = 0;
  int64_t changes_ = 0;
  int64_t next_statement_ = 0;
  bool in_transaction_ = false;
  std::atomic<int64_t> term_{0};  // the lease's term while leading, else 0
};

// "postgresql://USER@HOST:PORT/DBNAME" from a libpq connection string, for messages: never the
// password, whatever the string holds.
std::string DescribePostgresDsn(const std::string& dsn);

}  // namespace kvbench::controller
