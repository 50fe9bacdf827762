#pragma once

// One statement on the PostgreSQL store (the SqlStatement of postgres_database.h), and the mapping
// of PostgreSQL's SQLSTATE codes to absl::Status. Parameters go as text, blobs as binary (bytea);
// results come back binary, so protos and integers need no parsing. A statement prepared once is
// a named server-side prepared statement, prepared again after a reconnect (a new session has
// none); a one-use statement runs unnamed. A write outside a transaction on a database that
// leads runs in one, behind the lease's fence (postgres_database.h). Not thread-safe: the store
// uses it under SqlDatabase::mu().

#include <libpq-fe.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/store/sql_statement.h"

namespace kvbench::controller {

class PostgresDatabase;

// A Status for a failed PostgreSQL call saying what was being done: by SQLSTATE, integrity
// violations (23xxx) -> ALREADY_EXISTS (as SQLite's CONSTRAINT); a lost or refused connection
// (08xxx, no result), shutdown (57P0x), insufficient resources such as a full disk (53xxx), lock
// and serialization conflicts (40001, 40P01, 55P03) -> UNAVAILABLE; corrupt data (XX001, XX002) ->
// DATA_LOSS; no such database, no privilege, failed authentication (3D000, 42501, 28xxx) ->
// FAILED_PRECONDITION; anything else INTERNAL. `result` may be null (then the connection's error).
absl::Status PostgresError(PGconn* conn, const PGresult* result, absl::string_view what);

// `sql` with SQLite's ?N parameters written as PostgreSQL's $N (outside quoted literals).
std::string PostgresParameters(absl::string_view sql);

class PostgresStatement : public SqlStatement {
 public:
  // `name` is the server-side name of a statement prepared once; "" for one use.
  PostgresStatement(PostgresDatabase* db, std::string name, absl::string_view sql);
  ~PostgresStatement() override;
  PostgresStatement(const PostgresStatement&) = delete;
  PostgresStatement& operator=(const PostgresStatement&) = delete;

  void BindInt(int index, int64_t value) override;
  void BindText(int index, absl::string_view value) override;
  void BindBlob(int index, absl::string_view value) override;
  absl::StatusOr<bool> Step() override;
  absl::Status Run() override;
  void Reset() override;
  int64_t ColumnInt(int index) override;
  bool ColumnIsNull(int index) override;
  std::string ColumnText(int index) override;
  std::string ColumnBlob(int index) override;

 private:
  void Bind(int index, std::string value, int format);
  // Sends the statement with its parameters and keeps the result (rows, or the changed count).
  absl::Status Execute();
  // Execute, inside a fenced transaction when it writes outside one while the database leads.
  absl::Status ExecuteFenced();

  PostgresDatabase& db_;
  const std::string name_;
  const std::string sql_;             // with $N parameters
  const bool writes_;                 // INSERT, UPDATE or DELETE
  int64_t prepared_generation_ = -1;  // the connection generation it was prepared on
  std::vector<std::string> values_;
  std::vector<int> formats_;  // 0 text, 1 binary
  PGresult* result_ = nullptr;
  int row_ = -1;
  bool executed_ = false;
};

}  // namespace kvbench::controller
