#pragma once

// AgentStore on the table agents of a SqlDatabase.

#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "controller/store/agent_store.h"
#include "controller/store/sql_database.h"
#include "controller/store/sql_statement.h"

namespace kvbench::controller {

class SqlAgentStore : public AgentStore {
 public:
  // Prepares the statements on `db`, which must outlive the store.
  static absl::StatusOr<std::unique_ptr<SqlAgentStore>> Create(SqlDatabase* db);

  absl::Status UpsertAgent(const v1::AgentCapabilities& capabilities,
                           absl::Time last_seen) override;
  absl::StatusOr<std::vector<AgentRecord>> ListAgents() override;

 private:
  explicit SqlAgentStore(SqlDatabase* db) : db_(*db) {}

  SqlDatabase& db_;
  // Prepared once, used under db_.mu().
  std::unique_ptr<SqlStatement> upsert_agent_, select_agents_;
};

}  // namespace kvbench::controller
