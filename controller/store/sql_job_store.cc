#include "controller/store/sql_job_store.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "controller/store/sql_blob.h"
#include "controller/store/sql_statements.h"

namespace kvbench::controller {
namespace {

using store_internal::ParseBlob;

// Unix milliseconds as stored (0 = not set) and back.
absl::Time TimeOrPast(int64_t unix_ms) {
  return unix_ms == 0 ? absl::InfinitePast() : absl::FromUnixMillis(unix_ms);
}
int64_t UnixMsOrZero(absl::Time time) {
  return time == absl::InfinitePast() ? 0 : absl::ToUnixMillis(time);
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqlJobStore>> SqlJobStore::Create(SqlDatabase* db) {
  std::unique_ptr<SqlJobStore> store(new SqlJobStore(db));
  absl::MutexLock lock(&db->mu());
  KV_RETURN_IF_ERROR(store->PrepareStatements());
  return store;
}

absl::Status SqlJobStore::PrepareStatements() {
  KV_RETURN_IF_ERROR(db_.Prepare(insert_job_, sql::kInsertJob));
  KV_RETURN_IF_ERROR(db_.Prepare(insert_scenario_, sql::kInsertScenario));
  KV_RETURN_IF_ERROR(
      db_.Prepare(select_job_, absl::StrCat(sql::kJobColumns, sql::kSelectJobWhere)));
  KV_RETURN_IF_ERROR(db_.Prepare(list_jobs_, absl::StrCat(sql::kJobColumns, sql::kListJobsWhere)));
  KV_RETURN_IF_ERROR(db_.Prepare(select_scenarios_, sql::kSelectScenarios));
  KV_RETURN_IF_ERROR(db_.Prepare(update_job_state_, sql::kUpdateJobState));
  KV_RETURN_IF_ERROR(db_.Prepare(update_job_, sql::kUpdateJob));
  KV_RETURN_IF_ERROR(db_.Prepare(update_scenario_, sql::kUpdateScenario));
  KV_RETURN_IF_ERROR(db_.Prepare(select_job_by_request_, sql::kSelectJobByRequest));
  KV_RETURN_IF_ERROR(db_.Prepare(upsert_result_, sql::kUpsertResult));
  return db_.Prepare(select_results_, sql::kSelectResults);
}

absl::Status SqlJobStore::PutJob(const std::string& job_id, const v1::JobSpec& spec,
                                 const std::vector<v1::Scenario>& scenarios, int32_t priority,
                                 absl::Time submit_time, const std::string& request_id) {
  if (job_id.empty()) return absl::InvalidArgumentError("PutJob: empty job id");
  for (const v1::Scenario& scenario : scenarios) {
    if (scenario.scenario_id().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("PutJob ", job_id, ": scenario ", scenario.index(), " has no id"));
    }
  }
  absl::MutexLock lock(&db_.mu());
  return db_.InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu()) -> absl::Status {
    ScopedStatement insert(*insert_job_);
    insert->BindText(1, job_id);
    insert->BindText(2, spec.name());
    insert->BindBlob(3, spec.SerializeAsString());
    insert->BindInt(4, v1::JOB_STATE_QUEUED);
    insert->BindInt(5, priority);
    insert->BindInt(6, absl::ToUnixMillis(submit_time));
    insert->BindText(7, request_id);
    absl::Status status = insert->Run();
    if (absl::IsAlreadyExists(status)) {
      return absl::AlreadyExistsError(db_.Where(
          absl::StrCat("job ", job_id, " or request id \"", request_id, "\" already exists")));
    }
    KV_RETURN_IF_ERROR(status);
    return InsertScenarios(job_id, scenarios);
  });
}

absl::Status SqlJobStore::InsertScenarios(const std::string& job_id,
                                          const std::vector<v1::Scenario>& scenarios) {
  for (const v1::Scenario& scenario : scenarios) {
    ScopedStatement row(*insert_scenario_);
    row->BindText(1, job_id);
    row->BindText(2, scenario.scenario_id());
    row->BindInt(3, scenario.index());
    row->BindBlob(4, scenario.SerializeAsString());
    row->BindInt(5, v1::SCENARIO_STATE_PENDING);
    absl::Status status = row->Run();
    if (absl::IsAlreadyExists(status)) {
      return absl::InvalidArgumentError(db_.Where(absl::StrCat(
          "job ", job_id, ": scenario id ", scenario.scenario_id(), " appears twice")));
    }
    KV_RETURN_IF_ERROR(status);
  }
  return absl::OkStatus();
}

absl::Status SqlJobStore::AddScenarios(const std::string& job_id,
                                       const std::vector<v1::Scenario>& scenarios) {
  for (const v1::Scenario& scenario : scenarios) {
    if (scenario.scenario_id().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("AddScenarios ", job_id, ": scenario ", scenario.index(), " has no id"));
    }
  }
  absl::MutexLock lock(&db_.mu());
  return db_.InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(db_.mu()) -> absl::Status {
    {
      ScopedStatement select(*select_job_);
      select->BindText(1, job_id);
      KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
      if (!has_row) return absl::NotFoundError(db_.Where(absl::StrCat("no job ", job_id)));
    }
    return InsertScenarios(job_id, scenarios);
  });
}

absl::StatusOr<JobRecord> SqlJobStore::ReadJobRow(SqlStatement& statement, int64_t* position) {
  JobRecord job;
  *position = statement.ColumnInt(0);
  job.job_id = statement.ColumnText(1);
  KV_RETURN_IF_ERROR(ParseBlob(statement.ColumnBlob(2), job.spec, db_.Where("job " + job.job_id)));
  job.state = static_cast<v1::JobState>(statement.ColumnInt(3));
  job.priority = static_cast<int32_t>(statement.ColumnInt(4));
  job.submit_time = absl::FromUnixMillis(statement.ColumnInt(5));
  job.request_id = statement.ColumnText(6);
  job.start_time = TimeOrPast(statement.ColumnInt(7));
  job.end_time = TimeOrPast(statement.ColumnInt(8));
  job.error = statement.ColumnText(9);
  return job;
}

absl::Status SqlJobStore::ReadScenarios(JobRecord& job) {
  ScopedStatement select(*select_scenarios_);
  select->BindText(1, job.job_id);
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) return absl::OkStatus();
    ScenarioRecord record;
    KV_RETURN_IF_ERROR(
        ParseBlob(select->ColumnBlob(0), record.scenario, db_.Where("job " + job.job_id)));
    record.state = static_cast<v1::ScenarioState>(select->ColumnInt(1));
    record.reason = select->ColumnText(2);
    record.attempt = static_cast<int32_t>(select->ColumnInt(3));
    record.agent_id = select->ColumnText(4);
    job.scenarios.push_back(std::move(record));
  }
}

absl::StatusOr<JobRecord> SqlJobStore::GetJob(const std::string& job_id) {
  absl::MutexLock lock(&db_.mu());
  JobRecord job;
  {
    ScopedStatement select(*select_job_);
    select->BindText(1, job_id);
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) return absl::NotFoundError(db_.Where(absl::StrCat("no job ", job_id)));
    int64_t position = 0;
    KV_ASSIGN_OR_RETURN(job, ReadJobRow(*select_job_, &position));
  }
  KV_RETURN_IF_ERROR(ReadScenarios(job));
  return job;
}

absl::StatusOr<JobPage> SqlJobStore::ListJobs(const JobFilter& filter, int page_size,
                                              const std::string& page_token) {
  if (page_size < 0) {
    return absl::InvalidArgumentError(absl::StrCat("ListJobs: negative page size ", page_size));
  }
  if (page_size == 0) page_size = kDefaultJobPageSize;
  if (page_size > kMaxJobPageSize) page_size = kMaxJobPageSize;
  int64_t after = 0;
  if (!page_token.empty() && (!absl::SimpleAtoi(page_token, &after) || after < 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ListJobs: page token \"", page_token, "\" is not one ListJobs returned"));
  }
  absl::MutexLock lock(&db_.mu());
  JobPage page;
  int64_t last_position = 0;
  bool more = false;
  {
    ScopedStatement list(*list_jobs_);
    list->BindInt(1, after);
    list->BindInt(2, filter.state.has_value() ? static_cast<int64_t>(*filter.state) : -1);
    list->BindText(3, filter.name);
    list->BindInt(4, page_size + 1);  // one extra row says whether another page follows
    while (true) {
      KV_ASSIGN_OR_RETURN(bool has_row, list->Step());
      if (!has_row) break;
      if (static_cast<int>(page.jobs.size()) == page_size) {
        more = true;
        break;
      }
      KV_ASSIGN_OR_RETURN(JobRecord job, ReadJobRow(*list_jobs_, &last_position));
      page.jobs.push_back(std::move(job));
    }
  }
  for (JobRecord& job : page.jobs) KV_RETURN_IF_ERROR(ReadScenarios(job));
  if (more) page.next_page_token = absl::StrCat(last_position);
  return page;
}

absl::Status SqlJobStore::SetJobState(const std::string& job_id, v1::JobState state) {
  absl::MutexLock lock(&db_.mu());
  ScopedStatement update(*update_job_state_);
  update->BindText(1, job_id);
  update->BindInt(2, state);
  KV_RETURN_IF_ERROR(update->Run());
  if (db_.Changes() == 0) return absl::NotFoundError(db_.Where("no job " + job_id));
  return absl::OkStatus();
}

absl::Status SqlJobStore::UpdateJob(const std::string& job_id, const JobStatusUpdate& update) {
  absl::MutexLock lock(&db_.mu());
  ScopedStatement statement(*update_job_);
  statement->BindText(1, job_id);
  statement->BindInt(2, update.state);
  statement->BindInt(3, UnixMsOrZero(update.start_time));
  statement->BindInt(4, UnixMsOrZero(update.end_time));
  statement->BindText(5, update.error);
  KV_RETURN_IF_ERROR(statement->Run());
  if (db_.Changes() == 0) return absl::NotFoundError(db_.Where("no job " + job_id));
  return absl::OkStatus();
}

absl::StatusOr<std::string> SqlJobStore::JobIdForRequest(const std::string& request_id) {
  if (request_id.empty()) return std::string();
  absl::MutexLock lock(&db_.mu());
  ScopedStatement select(*select_job_by_request_);
  select->BindText(1, request_id);
  KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
  return has_row ? select->ColumnText(0) : std::string();
}

absl::Status SqlJobStore::SetScenarioState(const std::string& job_id,
                                           const std::string& scenario_id, v1::ScenarioState state,
                                           const std::string& reason, int32_t attempt,
                                           const std::string& agent_id) {
  absl::MutexLock lock(&db_.mu());
  ScopedStatement update(*update_scenario_);
  update->BindText(1, job_id);
  update->BindText(2, scenario_id);
  update->BindInt(3, state);
  update->BindText(4, reason);
  update->BindInt(5, attempt);
  update->BindText(6, agent_id);
  KV_RETURN_IF_ERROR(update->Run());
  if (db_.Changes() == 0) {
    return absl::NotFoundError(
        db_.Where(absl::StrCat("job ", job_id, " has no scenario ", scenario_id)));
  }
  return absl::OkStatus();
}

absl::Status SqlJobStore::PutResult(const std::string& job_id, const std::string& scenario_id,
                                    const v1::ScenarioResult& result) {
  if (job_id.empty() || scenario_id.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("PutResult: empty job id \"", job_id,
                                                   "\" or scenario id \"", scenario_id, "\""));
  }
  absl::MutexLock lock(&db_.mu());
  ScopedStatement upsert(*upsert_result_);
  upsert->BindText(1, job_id);
  upsert->BindText(2, scenario_id);
  upsert->BindBlob(3, result.SerializeAsString());
  return upsert->Run();
}

absl::StatusOr<std::vector<StoredResult>> SqlJobStore::GetResults(const std::string& job_id) {
  absl::MutexLock lock(&db_.mu());
  ScopedStatement select(*select_results_);
  select->BindText(1, job_id);
  std::vector<StoredResult> results;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) return results;
    StoredResult stored;
    stored.scenario_id = select->ColumnText(0);
    KV_RETURN_IF_ERROR(
        ParseBlob(select->ColumnBlob(1), stored.result,
                  db_.Where(absl::StrCat("result of ", job_id, "/", stored.scenario_id))));
    results.push_back(std::move(stored));
  }
}

}  // namespace kvbench::controller
