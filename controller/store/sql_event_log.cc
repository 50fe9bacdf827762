#include "controller/store/sql_event_log.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "controller/store/sql_blob.h"
#include "controller/store/sql_statements.h"

namespace kvbench::controller {

using store_internal::ParseBlob;

absl::StatusOr<std::unique_ptr<SqlEventLog>> SqlEventLog::Create(SqlDatabase* db) {
  std::unique_ptr<SqlEventLog> log(new SqlEventLog(db));
  absl::MutexLock lock(&db->mu());
  KV_RETURN_IF_ERROR(log->PrepareStatements());
  return log;
}

absl::Status SqlEventLog::PrepareStatements() {
  KV_RETURN_IF_ERROR(db_.Prepare(max_event_seq_, sql::kMaxEventSeq));
  KV_RETURN_IF_ERROR(db_.Prepare(insert_event_, sql::kInsertEvent));
  KV_RETURN_IF_ERROR(db_.Prepare(select_events_, sql::kSelectEvents));
  KV_RETURN_IF_ERROR(db_.Prepare(insert_requests_, sql::kInsertRequests));
  KV_RETURN_IF_ERROR(db_.Prepare(select_requests_, sql::kSelectRequests));
  return db_.Prepare(delete_requests_before_, sql::kDeleteRequestsBefore);
}

absl::StatusOr<int64_t> SqlEventLog::MaxEventSeq(const std::string& agent_id) {
  absl::MutexLock lock(&db_.mu());
  ScopedStatement select(*max_event_seq_);
  select->BindText(1, agent_id);
  KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
  return has_row ? select->ColumnInt(0) : 0;
}

namespace {

absl::Status CheckEvent(const v1::Event& event) {
  if (event.agent_id().empty() || event.job_id().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "AppendEvent: event seq ", event.seq(), " lacks an agent id or a job id (agent \"",
        event.agent_id(), "\", job \"", event.job_id(), "\")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> SqlEventLog::InsertEvent(const v1::Event& event) {
  ScopedStatement insert(*insert_event_);
  insert->BindText(1, event.agent_id());
  insert->BindText(2, event.scenario_id());
  insert->BindInt(3, event.seq());
  insert->BindText(4, event.job_id());
  if (event.has_requests()) {
    v1::Event without_rows = event;
    without_rows.mutable_requests()->clear_rows();
    insert->BindBlob(5, without_rows.SerializeAsString());
  } else {
    insert->BindBlob(5, event.SerializeAsString());
  }
  KV_RETURN_IF_ERROR(insert->Run());
  const bool inserted = db_.Changes() > 0;
  if (inserted && event.has_requests()) {
    ScopedStatement rows(*insert_requests_);
    rows->BindText(1, event.job_id());
    rows->BindText(2, event.scenario_id());
    rows->BindInt(3, event.attempt());
    rows->BindInt(4, event.requests().first_index());
    rows->BindBlob(5, event.requests().SerializeAsString());
    rows->BindInt(6, absl::ToUnixMillis(absl::Now()));
    KV_RETURN_IF_ERROR(rows->Run());
  }
  return inserted;
}

absl::StatusOr<std::vector<v1::RequestRecords>> SqlEventLog::ListRequests(
    const std::string& job_id, const std::string& scenario_id, int32_t attempt,
    int64_t after_first_index, int limit_chunks) {
  absl::MutexLock lock(&db_.mu());
  ScopedStatement select(*select_requests_);
  select->BindText(1, job_id);
  select->BindText(2, scenario_id);
  select->BindInt(3, attempt);
  select->BindInt(4, after_first_index);
  select->BindInt(5, limit_chunks);
  std::vector<v1::RequestRecords> chunks;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) break;
    v1::RequestRecords chunk;
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(0), chunk, db_.Where("requests")));
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

absl::StatusOr<int64_t> SqlEventLog::PruneRequests(absl::Time before) {
  absl::MutexLock lock(&db_.mu());
  ScopedStatement remove(*delete_requests_before_);
  remove->BindInt(1, absl::ToUnixMillis(before));
  KV_RETURN_IF_ERROR(remove->Run());
  return static_cast<int64_t>(db_.Changes());
}

absl::StatusOr<bool> SqlEventLog::AppendEvent(const v1::Event& event) {
  KV_RETURN_IF_ERROR(CheckEvent(event));
  absl::MutexLock lock(&db_.mu());
  return InsertEvent(event);
}

absl::StatusOr<std::vector<bool>> SqlEventLog::AppendEvents(const std::vector<v1::Event>& events) {
  for (const v1::Event& event : events) KV_RETURN_IF_ERROR(CheckEvent(event));
  std::vector<bool> stored;
  stored.reserve(events.size());
  absl::MutexLock lock(&db_.mu());
  KV_RETURN_IF_ERROR(
      db_.InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu()) -> absl::Status {
        for (const v1::Event& event : events) {
          KV_ASSIGN_OR_RETURN(bool inserted, InsertEvent(event));
          stored.push_back(inserted);
        }
        return absl::OkStatus();
      }));
  return stored;
}

absl::StatusOr<std::vector<StoredEvent>> SqlEventLog::EventsForJob(const std::string& job_id,
                                                                   int64_t after_position,
                                                                   int limit) {
  if (limit <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("EventsForJob: limit ", limit, " is not > 0"));
  }
  absl::MutexLock lock(&db_.mu());
  ScopedStatement select(*select_events_);
  select->BindText(1, job_id);
  select->BindInt(2, after_position);
  select->BindInt(3, limit);
  std::vector<StoredEvent> events;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) return events;
    StoredEvent stored;
    stored.position = select->ColumnInt(0);
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(1), stored.event,
                                 db_.Where(absl::StrCat("event at ", stored.position))));
    events.push_back(std::move(stored));
  }
}

}  // namespace kvbench::controller
