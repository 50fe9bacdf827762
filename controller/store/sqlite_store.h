#pragma once

// Store on one SQLite file.
//
// Durability: the database runs in WAL mode with synchronous=FULL, so every committed
// transaction has been fsync'ed to the WAL before the call returns. An event or result that
// AppendEvent/PutResult returned OK for (and that the controller then acknowledged, letting the
// agent drop it from its spool) survives both a kill -9 of the controller and a power loss or
// kernel crash. synchronous=NORMAL would survive kill -9 only: the last commits could vanish on
// power loss, and the agent would never resend them. The cost is one fsync per write call, well
// within the event rate of a few agents; batch writes in one call if that ever matters.
//
// Thread-safety: one connection guarded by one mutex; every method may be called from any thread
// and calls are serialized. One SqliteStore per file per process; a second process opening the
// same file waits up to kBusyTimeout for locks and then gets UNAVAILABLE.

#include <sqlite3.h>

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/store/regression_store.h"
#include "controller/store/schedule_store.h"
#include "controller/store/sqlite_statement.h"
#include "controller/store/store.h"

namespace kvbench::controller {

// The schema this code writes, kept in PRAGMA user_version. A newer file is refused.
inline constexpr int kSqliteSchemaVersion = 3;
// How long a statement waits for a lock held by another connection before UNAVAILABLE.
inline constexpr absl::Duration kBusyTimeout = absl::Seconds(5);

class SqliteStore : public Store, public ScheduleStore, public RegressionStore {
 public:
  // Opens (creating if missing) the database at `path` and creates the schema if absent.
  // DATA_LOSS when the file is not an SQLite database or is corrupt; FAILED_PRECONDITION when it
  // cannot be opened or has a newer schema. Every message names the path.
  static absl::StatusOr<std::unique_ptr<SqliteStore>> Open(const std::string& path);
  ~SqliteStore() override;

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
  absl::StatusOr<int64_t> MaxEventSeq(const std::string& agent_id) override;
  absl::Status SetScenarioState(const std::string& job_id, const std::string& scenario_id,
                                v1::ScenarioState state, const std::string& reason, int32_t attempt,
                                const std::string& agent_id) override;
  absl::StatusOr<bool> AppendEvent(const v1::Event& event) override;
  absl::StatusOr<std::vector<bool>> AppendEvents(const std::vector<v1::Event>& events) override;
  absl::StatusOr<std::vector<StoredEvent>> EventsForJob(const std::string& job_id,
                                                        int64_t after_position, int limit) override;
  absl::Status PutResult(const std::string& job_id, const std::string& scenario_id,
                         const v1::ScenarioResult& result) override;
  absl::StatusOr<std::vector<StoredResult>> GetResults(const std::string& job_id) override;
  absl::StatusOr<std::vector<v1::RequestRecords>> ListRequests(const std::string& job_id,
                                                               const std::string& scenario_id,
                                                               int32_t attempt,
                                                               int64_t after_first_index,
                                                               int limit_chunks) override;
  absl::StatusOr<int64_t> PruneRequests(absl::Time before) override;
  absl::Status UpsertAgent(const v1::AgentCapabilities& capabilities,
                           absl::Time last_seen) override;
  absl::StatusOr<std::vector<AgentRecord>> ListAgents() override;

  // ScheduleStore (sqlite_store_schedules.cc).
  absl::Status CreateSchedule(const v1::Schedule& schedule) override;
  absl::Status UpdateSchedule(const v1::Schedule& schedule) override;
  absl::StatusOr<std::vector<v1::Schedule>> ListSchedules() override;
  absl::Status DeleteSchedule(const std::string& name) override;
  absl::StatusOr<bool> RecordFire(const v1::Schedule& schedule,
                                  const v1::ScheduleFire& fire) override;
  absl::StatusOr<std::vector<v1::ScheduleFire>> RecentFires(const std::string& name,
                                                            int limit) override;

  // RegressionStore (sqlite_store_regressions.cc).
  absl::StatusOr<bool> RecordAnalysis(const v1::RunAnalysis& analysis,
                                      const std::vector<std::string>& webhooks,
                                      absl::Time now) override;
  absl::StatusOr<std::optional<v1::RunAnalysis>> GetAnalysis(const std::string& job_id) override;
  absl::StatusOr<std::vector<v1::ChangePoint>> ListChangePoints(
      const std::string& schedule) override;
  absl::Status SetBaseline(const v1::Baseline& baseline) override;
  absl::StatusOr<v1::Baseline> GetBaseline(const std::string& schedule) override;
  absl::StatusOr<std::vector<v1::AlertWithDeliveries>> ListAlerts(const std::string& schedule,
                                                                  const std::string& job_id,
                                                                  int limit) override;
  absl::StatusOr<std::vector<DueDelivery>> DueDeliveries(absl::Time now, int limit) override;
  absl::StatusOr<std::optional<absl::Time>> NextDeliveryTime() override;
  absl::Status UpdateDelivery(const v1::AlertDelivery& delivery) override;
  absl::StatusOr<int> RedeliverNow(const std::string& webhook, bool include_failed,
                                   absl::Time now) override;
  absl::StatusOr<std::map<v1::DeliveryState, int64_t>> CountDeliveries() override;

 private:
  struct Statements;

  SqliteStore(std::string path, sqlite3* db);

  absl::Status Init();
  absl::Status Exec(const char* sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CreateSchemaIfMissing() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status PrepareStatements() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs `body` between BEGIN IMMEDIATE and COMMIT; rolls back if it fails.
  absl::Status InTransaction(absl::FunctionRef<absl::Status()> body)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reads the job row the statement is positioned on (position, job_id, spec, state, priority,
  // submit_unix_ms) and its scenarios; sets *position.
  absl::StatusOr<JobRecord> ReadJobRow(SqliteStatement& statement, int64_t* position)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ReadScenarios(JobRecord& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Inserts the job's scenarios PENDING; call within a transaction.
  absl::Status InsertScenarios(const std::string& job_id,
                               const std::vector<v1::Scenario>& scenarios)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Inserts one event unless stored before; true if inserted now.
  absl::StatusOr<bool> InsertEvent(const v1::Event& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status UpdateScheduleLocked(const v1::Schedule& schedule)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Prepares `sql` for one use (the regression tables are read and written rarely).
  absl::StatusOr<std::unique_ptr<SqliteStatement>> PrepareOnce(const char* sql)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // `what` prefixed with the store's path, for every error this class returns.
  std::string Where(absl::string_view what) const;

  const std::string path_;
  absl::Mutex mu_;
  sqlite3* db_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statements> statements_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kvbench::controller
