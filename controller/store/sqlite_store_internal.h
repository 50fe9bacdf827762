#pragma once

// SqliteStore's prepared statements and blob decoding, shared by its .cc files (sqlite_store.cc:
// jobs and scenarios; sqlite_store_events.cc: what agents report; sqlite_store_schedules.cc:
// schedules and their fires). Private to the store.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "controller/store/sqlite_statement.h"
#include "controller/store/sqlite_store.h"

namespace kvbench::controller {

struct SqliteStore::Statements {
  std::unique_ptr<SqliteStatement> begin, commit, rollback;
  std::unique_ptr<SqliteStatement> insert_job, insert_scenario, select_job, list_jobs,
      select_scenarios, update_job_state, update_job, update_scenario, select_job_by_request;
  std::unique_ptr<SqliteStatement> insert_event, select_events, max_event_seq;
  std::unique_ptr<SqliteStatement> upsert_result, select_results;
  std::unique_ptr<SqliteStatement> upsert_agent, select_agents;
  std::unique_ptr<SqliteStatement> insert_schedule, update_schedule, select_schedules,
      delete_schedule, delete_schedule_fires, insert_schedule_fire, select_schedule_fires;
  std::unique_ptr<SqliteStatement> insert_requests, select_requests, delete_requests_before;
};

namespace store_internal {

// A proto stored as a BLOB; DATA_LOSS naming `what` when it does not parse.
template <typename Message>
absl::Status ParseBlob(const std::string& blob, Message& message, absl::string_view what) {
  if (!message.ParseFromString(blob)) {
    return absl::DataLossError(
        absl::StrCat(what, ": stored ", message.GetTypeName(), " does not parse"));
  }
  return absl::OkStatus();
}

}  // namespace store_internal
}  // namespace kvbench::controller
