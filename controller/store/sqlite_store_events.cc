// SqliteStore, what agents report: events (stored once, read back by position), results and
// agents. Jobs and scenarios are in sqlite_store.cc.

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "controller/store/sqlite_store.h"
#include "controller/store/sqlite_store_internal.h"

namespace kvbench::controller {

using store_internal::ParseBlob;

absl::StatusOr<int64_t> SqliteStore::MaxEventSeq(const std::string& agent_id) {
  absl::MutexLock lock(&mu_);
  ScopedStatement select(*statements_->max_event_seq);
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

absl::StatusOr<bool> SqliteStore::InsertEvent(const v1::Event& event) {
  ScopedStatement insert(*statements_->insert_event);
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
  const bool inserted = sqlite3_changes(db_) > 0;
  if (inserted && event.has_requests()) {
    ScopedStatement rows(*statements_->insert_requests);
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

absl::StatusOr<std::vector<v1::RequestRecords>> SqliteStore::ListRequests(
    const std::string& job_id, const std::string& scenario_id, int32_t attempt,
    int64_t after_first_index, int limit_chunks) {
  absl::MutexLock lock(&mu_);
  ScopedStatement select(*statements_->select_requests);
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
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(0), chunk, Where("requests")));
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

absl::StatusOr<int64_t> SqliteStore::PruneRequests(absl::Time before) {
  absl::MutexLock lock(&mu_);
  ScopedStatement remove(*statements_->delete_requests_before);
  remove->BindInt(1, absl::ToUnixMillis(before));
  KV_RETURN_IF_ERROR(remove->Run());
  return static_cast<int64_t>(sqlite3_changes(db_));
}

absl::StatusOr<bool> SqliteStore::AppendEvent(const v1::Event& event) {
  KV_RETURN_IF_ERROR(CheckEvent(event));
  absl::MutexLock lock(&mu_);
  return InsertEvent(event);
}

absl::StatusOr<std::vector<bool>> SqliteStore::AppendEvents(const std::vector<v1::Event>& events) {
  for (const v1::Event& event : events) KV_RETURN_IF_ERROR(CheckEvent(event));
  std::vector<bool> stored;
  stored.reserve(events.size());
  absl::MutexLock lock(&mu_);
  KV_RETURN_IF_ERROR(InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    for (const v1::Event& event : events) {
      KV_ASSIGN_OR_RETURN(bool inserted, InsertEvent(event));
      stored.push_back(inserted);
    }
    return absl::OkStatus();
  }));
  return stored;
}

absl::StatusOr<std::vector<StoredEvent>> SqliteStore::EventsForJob(const std::string& job_id,
                                                                   int64_t after_position,
                                                                   int limit) {
  if (limit <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("EventsForJob: limit ", limit, " is not > 0"));
  }
  absl::MutexLock lock(&mu_);
  ScopedStatement select(*statements_->select_events);
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
                                 Where(absl::StrCat("event at ", stored.position))));
    events.push_back(std::move(stored));
  }
}

absl::Status SqliteStore::PutResult(const std::string& job_id, const std::string& scenario_id,
                                    const v1::ScenarioResult& result) {
  if (job_id.empty() || scenario_id.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("PutResult: empty job id \"", job_id,
                                                   "\" or scenario id \"", scenario_id, "\""));
  }
  absl::MutexLock lock(&mu_);
  ScopedStatement upsert(*statements_->upsert_result);
  upsert->BindText(1, job_id);
  upsert->BindText(2, scenario_id);
  upsert->BindBlob(3, result.SerializeAsString());
  return upsert->Run();
}

absl::StatusOr<std::vector<StoredResult>> SqliteStore::GetResults(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  ScopedStatement select(*statements_->select_results);
  select->BindText(1, job_id);
  std::vector<StoredResult> results;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) return results;
    StoredResult stored;
    stored.scenario_id = select->ColumnText(0);
    KV_RETURN_IF_ERROR(
        ParseBlob(select->ColumnBlob(1), stored.result,
                  Where(absl::StrCat("result of ", job_id, "/", stored.scenario_id))));
    results.push_back(std::move(stored));
  }
}

absl::Status SqliteStore::UpsertAgent(const v1::AgentCapabilities& capabilities,
                                      absl::Time last_seen) {
  if (capabilities.agent_id().empty()) {
    return absl::InvalidArgumentError("UpsertAgent: capabilities have no agent id");
  }
  absl::MutexLock lock(&mu_);
  ScopedStatement upsert(*statements_->upsert_agent);
  upsert->BindText(1, capabilities.agent_id());
  upsert->BindBlob(2, capabilities.SerializeAsString());
  upsert->BindInt(3, absl::ToUnixMillis(last_seen));
  return upsert->Run();
}

absl::StatusOr<std::vector<AgentRecord>> SqliteStore::ListAgents() {
  absl::MutexLock lock(&mu_);
  ScopedStatement select(*statements_->select_agents);
  std::vector<AgentRecord> agents;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) return agents;
    AgentRecord record;
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(0), record.capabilities, Where("agent")));
    record.last_seen = absl::FromUnixMillis(select->ColumnInt(1));
    agents.push_back(std::move(record));
  }
}

}  // namespace kvbench::controller
