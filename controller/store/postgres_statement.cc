#include "controller/store/postgres_statement.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "controller/store/postgres_database.h"

namespace kvbench::controller {
namespace {

// Type oids of the integer columns the store reads (PostgreSQL's pg_type.dat).
constexpr Oid kBoolOid = 16;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;

int64_t BigEndian(const char* bytes, int length) {
  uint64_t value = 0;
  for (int i = 0; i < length; ++i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  // Sign-extend the narrower types.
  if (length < 8 && length > 0 && (static_cast<unsigned char>(bytes[0]) & 0x80) != 0) {
    value |= ~uint64_t{0} << (8 * length);
  }
  return static_cast<int64_t>(value);
}

absl::StatusCode CodeForSqlState(absl::string_view state) {
  if (absl::StartsWith(state, "23")) return absl::StatusCode::kAlreadyExists;
  if (absl::StartsWith(state, "08") || absl::StartsWith(state, "57P") ||
      absl::StartsWith(state, "53") || state == "40001" || state == "40P01" || state == "55P03") {
    return absl::StatusCode::kUnavailable;
  }
  if (state == "XX001" || state == "XX002") return absl::StatusCode::kDataLoss;
  if (state == "3D000" || state == "42501" || absl::StartsWith(state, "28")) {
    return absl::StatusCode::kFailedPrecondition;
  }
  return absl::StatusCode::kInternal;
}

// Whether `sql` changes rows (its first word), so that it must run behind the fence.
bool IsWrite(absl::string_view sql) {
  absl::string_view word = absl::StripLeadingAsciiWhitespace(sql);
  word = word.substr(0, word.find_first_of(" \t\n("));
  return absl::EqualsIgnoreCase(word, "INSERT") || absl::EqualsIgnoreCase(word, "UPDATE") ||
         absl::EqualsIgnoreCase(word, "DELETE");
}

}  // namespace

absl::Status PostgresError(PGconn* conn, const PGresult* result, absl::string_view what) {
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string message = result != nullptr ? PQresultErrorMessage(result) : "";
  if (message.empty() && conn != nullptr) message = PQerrorMessage(conn);
  absl::string_view text = absl::StripTrailingAsciiWhitespace(message);
  if (state == nullptr || (conn != nullptr && PQstatus(conn) == CONNECTION_BAD)) {
    return absl::UnavailableError(absl::StrCat(what, ": ", text.empty() ? "no connection" : text));
  }
  return absl::Status(CodeForSqlState(state),
                      absl::StrCat(what, ": ", text, " (SQLSTATE ", state, ")"));
}

std::string PostgresParameters(absl::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  bool quoted = false;
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (c == '\'') quoted = !quoted;
    bool numbered =
        !quoted && c == '?' && i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9';
    out.push_back(numbered ? '$' : c);
  }
  return out;
}

PostgresStatement::PostgresStatement(PostgresDatabase* db, std::string name, absl::string_view sql)
    : db_(*db), name_(std::move(name)), sql_(PostgresParameters(sql)), writes_(IsWrite(sql)) {}

PostgresStatement::~PostgresStatement() { Reset(); }

void PostgresStatement::Bind(int index, std::string value, int format) {
  if (index < 1) return;
  const size_t at = static_cast<size_t>(index - 1);
  if (values_.size() <= at) {
    values_.resize(at + 1);
    formats_.resize(at + 1, 0);
  }
  values_[at] = std::move(value);
  formats_[at] = format;
}

void PostgresStatement::BindInt(int index, int64_t value) { Bind(index, absl::StrCat(value), 0); }
void PostgresStatement::BindText(int index, absl::string_view value) {
  Bind(index, std::string(value), 0);
}
void PostgresStatement::BindBlob(int index, absl::string_view value) {
  Bind(index, std::string(value), 1);
}

absl::Status PostgresStatement::Execute() {
  KV_ASSIGN_OR_RETURN(PGconn * conn, db_.Connection());
  std::vector<const char*> values;
  std::vector<int> lengths;
  values.reserve(values_.size());
  for (const std::string& value : values_) {
    values.push_back(value.data());
    lengths.push_back(static_cast<int>(value.size()));
  }
  const int count = static_cast<int>(values.size());
  if (name_.empty()) {
    result_ = PQexecParams(conn, sql_.c_str(), count, nullptr, values.data(), lengths.data(),
                           formats_.data(), /*resultFormat=*/1);
  } else {
    if (prepared_generation_ != db_.generation()) {
      PGresult* prepared = PQprepare(conn, name_.c_str(), sql_.c_str(), 0, nullptr);
      const bool ok = PQresultStatus(prepared) == PGRES_COMMAND_OK;
      absl::Status status =
          ok ? absl::OkStatus() : PostgresError(conn, prepared, db_.Where("preparing a statement"));
      PQclear(prepared);
      KV_RETURN_IF_ERROR(status);
      prepared_generation_ = db_.generation();
    }
    result_ = PQexecPrepared(conn, name_.c_str(), count, values.data(), lengths.data(),
                             formats_.data(), /*resultFormat=*/1);
  }
  executed_ = true;
  ExecStatusType status = PQresultStatus(result_);
  if (status == PGRES_TUPLES_OK) return absl::OkStatus();
  if (status == PGRES_COMMAND_OK) {
    int64_t changed = 0;
    (void)absl::SimpleAtoi(PQcmdTuples(result_), &changed);
    db_.set_changes(changed);
    return absl::OkStatus();
  }
  absl::Status error =
      PostgresError(conn, result_, db_.Where(absl::StrCat("running `", sql_, "`")));
  PQclear(result_);
  result_ = nullptr;
  return error;
}

absl::Status PostgresStatement::ExecuteFenced() {
  if (!writes_ || !db_.NeedsFence()) return Execute();
  return db_.InTransaction([this] { return Execute(); });
}

absl::StatusOr<bool> PostgresStatement::Step() {
  if (!executed_) KV_RETURN_IF_ERROR(ExecuteFenced());
  if (result_ == nullptr || PQresultStatus(result_) != PGRES_TUPLES_OK) return false;
  ++row_;
  return row_ < PQntuples(result_);
}

absl::Status PostgresStatement::Run() {
  absl::Status status = executed_ ? absl::OkStatus() : ExecuteFenced();
  Reset();
  return status;
}

void PostgresStatement::Reset() {
  if (result_ != nullptr) PQclear(result_);
  result_ = nullptr;
  row_ = -1;
  executed_ = false;
}

int64_t PostgresStatement::ColumnInt(int index) {
  if (ColumnIsNull(index)) return 0;
  const Oid type = PQftype(result_, index);
  const int length = PQgetlength(result_, row_, index);
  if (type == kInt8Oid || type == kInt4Oid || type == kInt2Oid || type == kBoolOid) {
    return BigEndian(PQgetvalue(result_, row_, index), length);
  }
  return 0;  // the store reads integers only from integer columns (postgres_schema.h)
}

bool PostgresStatement::ColumnIsNull(int index) {
  return result_ == nullptr || row_ < 0 || PQgetisnull(result_, row_, index) != 0;
}

std::string PostgresStatement::ColumnText(int index) { return ColumnBlob(index); }

std::string PostgresStatement::ColumnBlob(int index) {
  if (ColumnIsNull(index)) return "";
  return std::string(PQgetvalue(result_, row_, index),
                     static_cast<size_t>(PQgetlength(result_, row_, index)));
}

}  // namespace kvbench::controller
