#pragma once

// JobStore on the tables jobs, scenarios and results of a SqlDatabase (either engine).

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "controller/store/job_store.h"
#include "controller/store/sql_database.h"
#include "controller/store/sql_statement.h"

namespace kvbench::controller {

class SqlJobStore : public JobStore {
 public:
  // Prepares the statements on `db`, which must outlive the store.
  static absl::StatusOr<std::unique_ptr<SqlJobStore>> Create(SqlDatabase* db);

  absl::Status PutJob(const std::string& job_id, const v1::JobSpec& spec,
                      const std::vector<v1::Scenario>& scenarios, int32_t priority,
                      absl::Time submit_time, const std::string& request_id) override;
  absl::Status AddScenarios(const std::string& job_id,
                            const std::vector<v1::Scenario>& scenarios) override;
  absl::StatusOr<std::string> JobIdForRequest(const std::string& request_id) override;
  absl::StatusOr<JobRecord> GetJob(const std::string& job_id) override;
  absl::StatusOr<JobPage> ListJobs(const JobFilter& filter, int page_size,
                                   const std::string& page_token) override;
  absl::Status SetJobState(const std::string& job_id, v1::JobState state) override;
  absl::Status UpdateJob(const std::string& job_id, const JobStatusUpdate& update) override;
  absl::Status SetScenarioState(const std::string& job_id, const std::string& scenario_id,
                                v1::ScenarioState state, const std::string& reason, int32_t attempt,
                                const std::string& agent_id) override;
  absl::Status PutResult(const std::string& job_id, const std::string& scenario_id,
                         const v1::ScenarioResult& result) override;
  absl::StatusOr<std::vector<StoredResult>> GetResults(const std::string& job_id) override;

 private:
  explicit SqlJobStore(SqlDatabase* db) : db_(*db) {}

  absl::Status PrepareStatements() ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu());
  // Reads the job row the statement is positioned on (position, job_id, spec, state, priority,
  // submit_unix_ms, ...) and sets *position; the scenarios are read apart (ReadScenarios).
  absl::StatusOr<JobRecord> ReadJobRow(SqlStatement& statement, int64_t* position)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu());
  absl::Status ReadScenarios(JobRecord& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu());
  // Inserts the job's scenarios PENDING; call within a transaction.
  absl::Status InsertScenarios(const std::string& job_id,
                               const std::vector<v1::Scenario>& scenarios)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu());

  SqlDatabase& db_;
  // Prepared once, used under db_.mu().
  std::unique_ptr<SqlStatement> insert_job_, insert_scenario_, select_job_, list_jobs_,
      select_scenarios_, update_job_state_, update_job_, update_scenario_, select_job_by_request_,
      upsert_result_, select_results_;
};

}  // namespace kvbench::controller
