#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "controller/store/store.h"

namespace kvbench::controller {
class SqliteStore;
}

namespace kvbench::kvctl {

// `kvctl run`'s job store: the controller's SqliteStore at <out_dir>/<job_id>/job.db, opened when
// the embedded JobManager stores the run's one job (PutJob names the job id the manager chose).
// Before that it is the empty store a fresh controller recovers from: reads find nothing and
// anything else is FAILED_PRECONDITION. A second job is refused (one run, one job).
class JobFolderStore : public controller::Store {
 public:
  // The store's file name inside the job's folder.
  static constexpr char kFileName[] = "job.db";

  explicit JobFolderStore(std::string out_dir);
  ~JobFolderStore() override;

  // <out_dir>/<job_id>/job.db once the job is stored; "" before.
  const std::string& path() const { return path_; }

  absl::Status PutJob(const std::string& job_id, const v1::JobSpec& spec,
                      const std::vector<v1::Scenario>& scenarios, int32_t priority,
                      absl::Time submit_time, const std::string& request_id) override;
  absl::Status AddScenarios(const std::string& job_id,
                            const std::vector<v1::Scenario>& scenarios) override;
  absl::StatusOr<std::string> JobIdForRequest(const std::string& request_id) override;
  absl::StatusOr<controller::JobRecord> GetJob(const std::string& job_id) override;
  absl::StatusOr<controller::JobPage> ListJobs(const controller::JobFilter& filter, int page_size,
                                               const std::string& page_token) override;
  absl::Status SetJobState(const std::string& job_id, v1::JobState state) override;
  absl::Status UpdateJob(const std::string& job_id,
                         const controller::JobStatusUpdate& update) override;
  absl::Status SetScenarioState(const std::string& job_id, const std::string& scenario_id,
                                v1::ScenarioState state, const std::string& reason, int32_t attempt,
                                const std::string& agent_id) override;
  absl::StatusOr<bool> AppendEvent(const v1::Event& event) override;
  absl::StatusOr<std::vector<v1::RequestRecords>> ListRequests(const std::string& job_id,
                                                               const std::string& scenario_id,
                                                               int32_t attempt,
                                                               int64_t after_first_index,
                                                               int limit_chunks) override;
  absl::StatusOr<int64_t> PruneRequests(absl::Time before) override;
  absl::StatusOr<std::vector<bool>> AppendEvents(const std::vector<v1::Event>& events) override;
  absl::StatusOr<std::vector<controller::StoredEvent>> EventsForJob(const std::string& job_id,
                                                                    int64_t after_position,
                                                                    int limit) override;
  absl::StatusOr<int64_t> MaxEventSeq(const std::string& agent_id) override;
  absl::Status PutResult(const std::string& job_id, const std::string& scenario_id,
                         const v1::ScenarioResult& result) override;
  absl::StatusOr<std::vector<controller::StoredResult>> GetResults(
      const std::string& job_id) override;
  absl::Status UpsertAgent(const v1::AgentCapabilities& capabilities,
                           absl::Time last_seen) override;
  absl::StatusOr<std::vector<controller::AgentRecord>> ListAgents() override;

 private:
  // The open store, or FAILED_PRECONDITION before the job is stored.
  absl::StatusOr<controller::Store*> Opened() const;

  const std::string out_dir_;
  std::string path_;
  std::unique_ptr<controller::SqliteStore> store_;
};

}  // namespace kvbench::kvctl
