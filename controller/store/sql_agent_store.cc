#include "controller/store/sql_agent_store.h"

#include <utility>

#include "common/status/status_macros.h"
#include "controller/store/sql_blob.h"
#include "controller/store/sql_statements.h"

namespace kvbench::controller {

using store_internal::ParseBlob;

absl::StatusOr<std::unique_ptr<SqlAgentStore>> SqlAgentStore::Create(SqlDatabase* db) {
  std::unique_ptr<SqlAgentStore> store(new SqlAgentStore(db));
  absl::MutexLock lock(&db->mu());
  KV_RETURN_IF_ERROR(db->Prepare(store->upsert_agent_, sql::kUpsertAgent));
  KV_RETURN_IF_ERROR(db->Prepare(store->select_agents_, sql::kSelectAgents));
  return store;
}

absl::Status SqlAgentStore::UpsertAgent(const v1::AgentCapabilities& capabilities,
                                        absl::Time last_seen) {
  if (capabilities.agent_id().empty()) {
    return absl::InvalidArgumentError("UpsertAgent: capabilities have no agent id");
  }
  absl::MutexLock lock(&db_.mu());
  ScopedStatement upsert(*upsert_agent_);
  upsert->BindText(1, capabilities.agent_id());
  upsert->BindBlob(2, capabilities.SerializeAsString());
  upsert->BindInt(3, absl::ToUnixMillis(last_seen));
  return upsert->Run();
}

absl::StatusOr<std::vector<AgentRecord>> SqlAgentStore::ListAgents() {
  absl::MutexLock lock(&db_.mu());
  ScopedStatement select(*select_agents_);
  std::vector<AgentRecord> agents;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) return agents;
    AgentRecord record;
    KV_RETURN_IF_ERROR(ParseBlob(select->ColumnBlob(0), record.capabilities, db_.Where("agent")));
    record.last_seen = absl::FromUnixMillis(select->ColumnInt(1));
    agents.push_back(std::move(record));
  }
}

}  // namespace kvbench::controller
