#pragma once

// EventLog on the tables events and requests of a SqlDatabase.

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "controller/store/event_log.h"
#include "controller/store/sql_database.h"
#include "controller/store/sql_statement.h"

namespace kvbench::controller {

class SqlEventLog : public EventLog {
 public:
  // Prepares the statements on `db`, which must outlive the log.
  static absl::StatusOr<std::unique_ptr<SqlEventLog>> Create(SqlDatabase* db);

  absl::StatusOr<bool> AppendEvent(const v1::Event& event) override;
  absl::StatusOr<std::vector<bool>> AppendEvents(const std::vector<v1::Event>& events) override;
  absl::StatusOr<std::vector<StoredEvent>> EventsForJob(const std::string& job_id,
                                                        int64_t after_position, int limit) override;
  absl::StatusOr<int64_t> MaxEventSeq(const std::string& agent_id) override;
  absl::StatusOr<std::vector<v1::RequestRecords>> ListRequests(const std::string& job_id,
                                                               const std::string& scenario_id,
                                                               int32_t attempt,
                                                               int64_t after_first_index,
                                                               int limit_chunks) override;
  absl::StatusOr<int64_t> PruneRequests(absl::Time before) override;

 private:
  explicit SqlEventLog(SqlDatabase* db) : db_(*db) {}

  absl::Status PrepareStatements() ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu());
  // Inserts one event unless stored before; true if inserted now.
  absl::StatusOr<bool> InsertEvent(const v1::Event& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu());

  SqlDatabase& db_;
  // Prepared once, used under db_.mu().
  std::unique_ptr<SqlStatement> insert_event_, select_events_, max_event_seq_, insert_requests_,
      select_requests_, delete_requests_before_;
};

}  // namespace kvbench::controller
