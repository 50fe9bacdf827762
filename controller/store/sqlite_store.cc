#include "controller/store/sqlite_store.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"
#include "controller/store/sqlite_schema.h"
#include "controller/store/sqlite_store_internal.h"

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

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status = SqliteError(db, rc, absl::StrCat("store ", path, ": opening"));
    sqlite3_close(db);
    return status;
  }
  std::unique_ptr<SqliteStore> store(new SqliteStore(path, db));
  KV_RETURN_IF_ERROR(store->Init());
  return store;
}

SqliteStore::SqliteStore(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

SqliteStore::~SqliteStore() {
  absl::MutexLock lock(&mu_);
  statements_.reset();  // finalized before the connection closes
  sqlite3_close(db_);
}

std::string SqliteStore::Where(absl::string_view what) const {
  return absl::StrCat("store ", path_, ": ", what);
}

absl::Status SqliteStore::Exec(const char* sql) {
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, Where(absl::StrCat("running `", sql, "`")));
  return absl::OkStatus();
}

absl::Status SqliteStore::Init() {
  absl::MutexLock lock(&mu_);
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, static_cast<int>(absl::ToInt64Milliseconds(kBusyTimeout)));
  // The first statement reads the file header: a file that is not a database fails here.
  KV_RETURN_IF_ERROR(Exec("PRAGMA journal_mode = WAL"));
  KV_RETURN_IF_ERROR(Exec("PRAGMA synchronous = FULL"));
  KV_RETURN_IF_ERROR(CreateSchemaIfMissing());
  return PrepareStatements();
}

absl::Status SqliteStore::CreateSchemaIfMissing() {
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStatement> version,
                      SqliteStatement::Prepare(db_, "PRAGMA user_version"));
  KV_ASSIGN_OR_RETURN(bool has_row, version->Step());
  int64_t found = has_row ? version->ColumnInt(0) : 0;
  version.reset();
  if (found == kSqliteSchemaVersion) return absl::OkStatus();
  if (found < 0 || found > kSqliteSchemaVersion) {
    return absl::FailedPreconditionError(
        Where(absl::StrCat("schema version ", found, " is not the supported version ",
                           kSqliteSchemaVersion, " (written by a newer kvbench?)")));
  }
  // A new file gets version 1 and then the upgrades; an older file (kvbench before schedules, or
  // before regressions) only the upgrades it lacks, in one transaction: its jobs and events stay
  // as they are.
  KV_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  absl::Status status = found == 0 ? Exec(sql::kSchemaV1) : absl::OkStatus();
  if (status.ok() && found < 2) status = Exec(sql::kSchemaV2Upgrade);
  if (status.ok()) status = Exec(sql::kSchemaV3Upgrade);
  if (!status.ok()) {
    Exec("ROLLBACK").IgnoreError();
    return status;
  }
  if (found > 0) {
    KV_LOG(INFO) << "store upgraded from schema version " << found << " to " << kSqliteSchemaVersion
                 << " path=" << path_;
  }
  return Exec("COMMIT");
}

absl::Status SqliteStore::PrepareStatements() {
  auto statements = std::make_unique<Statements>();
  auto prepare = [this](std::unique_ptr<SqliteStatement>& into,
                        const std::string& text) -> absl::Status {
    absl::StatusOr<std::unique_ptr<SqliteStatement>> prepared = SqliteStatement::Prepare(db_, text);
    if (!prepared.ok())
      return absl::Status(prepared.status().code(), Where(prepared.status().message()));
    into = *std::move(prepared);
    return absl::OkStatus();
  };
  Statements& s = *statements;
  KV_RETURN_IF_ERROR(prepare(s.begin, sql::kBegin));
  KV_RETURN_IF_ERROR(prepare(s.commit, sql::kCommit));
  KV_RETURN_IF_ERROR(prepare(s.rollback, sql::kRollback));
  KV_RETURN_IF_ERROR(prepare(s.insert_job, sql::kInsertJob));
  KV_RETURN_IF_ERROR(prepare(s.insert_scenario, sql::kInsertScenario));
  KV_RETURN_IF_ERROR(prepare(s.select_job, absl::StrCat(sql::kJobColumns, sql::kSelectJobWhere)));
  KV_RETURN_IF_ERROR(prepare(s.list_jobs, absl::StrCat(sql::kJobColumns, sql::kListJobsWhere)));
  KV_RETURN_IF_ERROR(prepare(s.select_scenarios, sql::kSelectScenarios));
  KV_RETURN_IF_ERROR(prepare(s.update_job_state, sql::kUpdateJobState));
  KV_RETURN_IF_ERROR(prepare(s.update_job, sql::kUpdateJob));
  KV_RETURN_IF_ERROR(prepare(s.select_job_by_request, sql::kSelectJobByRequest));
  KV_RETURN_IF_ERROR(prepare(s.max_event_seq, sql::kMaxEventSeq));
  KV_RETURN_IF_ERROR(prepare(s.update_scenario, sql::kUpdateScenario));
  KV_RETURN_IF_ERROR(prepare(s.insert_event, sql::kInsertEvent));
  KV_RETURN_IF_ERROR(prepare(s.select_events, sql::kSelectEvents));
  KV_RETURN_IF_ERROR(prepare(s.upsert_result, sql::kUpsertResult));
  KV_RETURN_IF_ERROR(prepare(s.select_results, sql::kSelectResults));
  KV_RETURN_IF_ERROR(prepare(s.upsert_agent, sql::kUpsertAgent));
  KV_RETURN_IF_ERROR(prepare(s.select_agents, sql::kSelectAgents));
  KV_RETURN_IF_ERROR(prepare(s.insert_schedule, sql::kInsertSchedule));
  KV_RETURN_IF_ERROR(prepare(s.update_schedule, sql::kUpdateSchedule));
  KV_RETURN_IF_ERROR(prepare(s.select_schedules, sql::kSelectSchedules));
  KV_RETURN_IF_ERROR(prepare(s.delete_schedule, sql::kDeleteSchedule));
  KV_RETURN_IF_ERROR(prepare(s.delete_schedule_fires, sql::kDeleteScheduleFires));
  KV_RETURN_IF_ERROR(prepare(s.insert_schedule_fire, sql::kInsertScheduleFire));
  KV_RETURN_IF_ERROR(prepare(s.select_schedule_fires, sql::kSelectScheduleFires));
  KV_RETURN_IF_ERROR(prepare(s.insert_requests, sql::kInsertRequests));
  KV_RETURN_IF_ERROR(prepare(s.select_requests, sql::kSelectRequests));
  KV_RETURN_IF_ERROR(prepare(s.delete_requests_before, sql::kDeleteRequestsBefore));
  statements_ = std::move(statements);
  return absl::OkStatus();
}

absl::Status SqliteStore::InTransaction(absl::FunctionRef<absl::Status()> body) {
  KV_RETURN_IF_ERROR(statements_->begin->Run());
  absl::Status status = body();
  if (status.ok()) status = statements_->commit->Run();
  if (!status.ok()) statements_->rollback->Run().IgnoreError();
  return status;
}

absl::Status SqliteStore::PutJob(const std::string& job_id, const v1::JobSpec& spec,
                                 const std::vector<v1::Scenario>& scenarios, int32_t priority,
                                 absl::Time submit_time, const std::string& request_id) {
  if (job_id.empty()) return absl::InvalidArgumentError("PutJob: empty job id");
  for (const v1::Scenario& scenario : scenarios) {
    if (scenario.scenario_id().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("PutJob ", job_id, ": scenario ", scenario.index(), " has no id"));
    }
  }
  absl::MutexLock lock(&mu_);
  return InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    ScopedStatement insert(*statements_->insert_job);
    insert->BindText(1, job_id);
    insert->BindText(2, spec.name());
    insert->BindBlob(3, spec.SerializeAsString());
    insert->BindInt(4, v1::JOB_STATE_QUEUED);
    insert->BindInt(5, priority);
    insert->BindInt(6, absl::ToUnixMillis(submit_time));
    insert->BindText(7, request_id);
    absl::Status status = insert->Run();
    if (absl::IsAlreadyExists(status)) {
      return absl::AlreadyExistsError(Where(
          absl::StrCat("job ", job_id, " or request id \"", request_id, "\" already exists")));
    }
    KV_RETURN_IF_ERROR(status);
    return InsertScenarios(job_id, scenarios);
  });
}

absl::Status SqliteStore::InsertScenarios(const std::string& job_id,
                                          const std::vector<v1::Scenario>& scenarios) {
  for (const v1::Scenario& scenario : scenarios) {
    ScopedStatement row(*statements_->insert_scenario);
    row->BindText(1, job_id);
    row->BindText(2, scenario.scenario_id());
    row->BindInt(3, scenario.index());
    row->BindBlob(4, scenario.SerializeAsString());
    row->BindInt(5, v1::SCENARIO_STATE_PENDING);
    absl::Status status = row->Run();
    if (absl::IsAlreadyExists(status)) {
      return absl::InvalidArgumentError(Where(absl::StrCat(
          "job ", job_id, ": scenario id ", scenario.scenario_id(), " appears twice")));
    }
    KV_RETURN_IF_ERROR(status);
  }
  return absl::OkStatus();
}

absl::Status SqliteStore::AddScenarios(const std::string& job_id,
                                       const std::vector<v1::Scenario>& scenarios) {
  for (const v1::Scenario& scenario : scenarios) {
    if (scenario.scenario_id().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("AddScenarios ", job_id, ": scenario ", scenario.index(), " has no id"));
    }
  }
  absl::MutexLock lock(&mu_);
  return InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    {
      ScopedStatement select(*statements_->select_job);
      select->BindText(1, job_id);
      KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
      if (!has_row) return absl::NotFoundError(Where(absl::StrCat("no job ", job_id)));
    }
    return InsertScenarios(job_id, scenarios);
  });
}

absl::StatusOr<JobRecord> SqliteStore::ReadJobRow(SqliteStatement& statement, int64_t* position) {
  JobRecord job;
  *position = statement.ColumnInt(0);
  job.job_id = statement.ColumnText(1);
  KV_RETURN_IF_ERROR(ParseBlob(statement.ColumnBlob(2), job.spec, Where("job " + job.job_id)));
  job.state = static_cast<v1::JobState>(statement.ColumnInt(3));
  job.priority = static_cast<int32_t>(statement.ColumnInt(4));
  job.submit_time = absl::FromUnixMillis(statement.ColumnInt(5));
  job.request_id = statement.ColumnText(6);
  job.start_time = TimeOrPast(statement.ColumnInt(7));
  job.end_time = TimeOrPast(statement.ColumnInt(8));
  job.error = statement.ColumnText(9);
  return job;
}

absl::Status SqliteStore::ReadScenarios(JobRecord& job) {
  ScopedStatement select(*statements_->select_scenarios);
  select->BindText(1, job.job_id);
  while (true) {
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) return absl::OkStatus();
    ScenarioRecord record;
    KV_RETURN_IF_ERROR(
        ParseBlob(select->ColumnBlob(0), record.scenario, Where("job " + job.job_id)));
    record.state = static_cast<v1::ScenarioState>(select->ColumnInt(1));
    record.reason = select->ColumnText(2);
    record.attempt = static_cast<int32_t>(select->ColumnInt(3));
    record.agent_id = select->ColumnText(4);
    job.scenarios.push_back(std::move(record));
  }
}

absl::StatusOr<JobRecord> SqliteStore::GetJob(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  JobRecord job;
  {
    ScopedStatement select(*statements_->select_job);
    select->BindText(1, job_id);
    KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
    if (!has_row) return absl::NotFoundError(Where(absl::StrCat("no job ", job_id)));
    int64_t position = 0;
    KV_ASSIGN_OR_RETURN(job, ReadJobRow(*statements_->select_job, &position));
  }
  KV_RETURN_IF_ERROR(ReadScenarios(job));
  return job;
}

absl::StatusOr<JobPage> SqliteStore::ListJobs(const JobFilter& filter, int page_size,
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
  absl::MutexLock lock(&mu_);
  JobPage page;
  int64_t last_position = 0;
  bool more = false;
  {
    ScopedStatement list(*statements_->list_jobs);
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
      KV_ASSIGN_OR_RETURN(JobRecord job, ReadJobRow(*statements_->list_jobs, &last_position));
      page.jobs.push_back(std::move(job));
    }
  }
  for (JobRecord& job : page.jobs) KV_RETURN_IF_ERROR(ReadScenarios(job));
  if (more) page.next_page_token = absl::StrCat(last_position);
  return page;
}

absl::Status SqliteStore::SetJobState(const std::string& job_id, v1::JobState state) {
  absl::MutexLock lock(&mu_);
  ScopedStatement update(*statements_->update_job_state);
  update->BindText(1, job_id);
  update->BindInt(2, state);
  KV_RETURN_IF_ERROR(update->Run());
  if (sqlite3_changes(db_) == 0) return absl::NotFoundError(Where("no job " + job_id));
  return absl::OkStatus();
}

absl::Status SqliteStore::UpdateJob(const std::string& job_id, const JobStatusUpdate& update) {
  absl::MutexLock lock(&mu_);
  ScopedStatement statement(*statements_->update_job);
  statement->BindText(1, job_id);
  statement->BindInt(2, update.state);
  statement->BindInt(3, UnixMsOrZero(update.start_time));
  statement->BindInt(4, UnixMsOrZero(update.end_time));
  statement->BindText(5, update.error);
  KV_RETURN_IF_ERROR(statement->Run());
  if (sqlite3_changes(db_) == 0) return absl::NotFoundError(Where("no job " + job_id));
  return absl::OkStatus();
}

absl::StatusOr<std::string> SqliteStore::JobIdForRequest(const std::string& request_id) {
  if (request_id.empty()) return std::string();
  absl::MutexLock lock(&mu_);
  ScopedStatement select(*statements_->select_job_by_request);
  select->BindText(1, request_id);
  KV_ASSIGN_OR_RETURN(bool has_row, select->Step());
  return has_row ? select->ColumnText(0) : std::string();
}

absl::Status SqliteStore::SetScenarioState(const std::string& job_id,
                                           const std::string& scenario_id, v1::ScenarioState state,
                                           const std::string& reason, int32_t attempt,
                                           const std::string& agent_id) {
  absl::MutexLock lock(&mu_);
  ScopedStatement update(*statements_->update_scenario);
  update->BindText(1, job_id);
  update->BindText(2, scenario_id);
  update->BindInt(3, state);
  update->BindText(4, reason);
  update->BindInt(5, attempt);
  update->BindText(6, agent_id);
  KV_RETURN_IF_ERROR(update->Run());
  if (sqlite3_changes(db_) == 0) {
    return absl::NotFoundError(
        Where(absl::StrCat("job ", job_id, " has no scenario ", scenario_id)));
  }
  return absl::OkStatus();
}

}  // namespace kvbench::controller
