#pragma once

// AgentStore on the table agents of a SqliteDatabase.

#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "controller/store/agent_store.h"
#include "controller/store/sqlite_database.h"
#include "controller/store/sqlite_statement.h"

namespace kvbench::controller {

class SqliteAgentStore : public AgentStore {
 public:
  // Prepares the statements on `db`, which must outlive the store.
  static absl::StatusOr<std::unique_ptr<SqliteAgentStore>> Create(SqliteDatabase* db);

  absl::Status UpsertAgent(const v1::AgentCapabilities& capabilities,
                           absl::Time last_seen) override;
  absl::StatusOr<std::vector<AgentRecord>> ListAgents() override;

 private:
  explicit SqliteAgentStore(SqliteDatabase* db) : db_(*db) {}

  SqliteDatabase& db_;
  // Prepared once, used under db_.mu().
  std::unique_ptr<SqliteStatement> upsert_agent_, select_agents_;
};

}  // namespace kvbench::controller
