#pragma once

// One prepared statement of the store's database, whatever the engine (SQLite's
// sqlite_statement.h, PostgreSQL's postgres_statement.h): bind, step through the rows, read
// columns. Not thread-safe: the tables use it under SqlDatabase::mu().

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench::controller {

class SqlStatement {
 public:
  virtual ~SqlStatement() = default;

  // Parameters are 1-based (?1 is index 1). Text and blobs are copied.
  virtual void BindInt(int index, int64_t value) = 0;
  virtual void BindText(int index, absl::string_view value) = 0;
  virtual void BindBlob(int index, absl::string_view value) = 0;

  // Advances: true when a row is ready for the Column* getters, false when done.
  virtual absl::StatusOr<bool> Step() = 0;
  // Steps until done (for statements returning no rows) and resets.
  virtual absl::Status Run() = 0;
  // Ready for new bindings; releases any read snapshot or result the statement holds.
  virtual void Reset() = 0;

  // Columns are 0-based.
  virtual int64_t ColumnInt(int index) = 0;
  virtual bool ColumnIsNull(int index) = 0;
  virtual std::string ColumnText(int index) = 0;
  virtual std::string ColumnBlob(int index) = 0;
};

// Resets a statement when it leaves scope, whatever path the caller returns by.
class ScopedStatement {
 public:
  explicit ScopedStatement(SqlStatement& statement) : statement_(statement) { statement_.Reset(); }
  ~ScopedStatement() { statement_.Reset(); }
  ScopedStatement(const ScopedStatement&) = delete;
  ScopedStatement& operator=(const ScopedStatement&) = delete;
  SqlStatement* operator->() { return &statement_; }

 private:
  SqlStatement& statement_;
};

}  // namespace kvbench::controller
