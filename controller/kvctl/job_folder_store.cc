#include "controller/kvctl/job_folder_store.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "controller/store/sqlite_store.h"

namespace kvbench::kvctl {

JobFolderStore::JobFolderStore(std::string out_dir) : out_dir_(std::move(out_dir)) {}

JobFolderStore::~JobFolderStore() = default;

absl::StatusOr<controller::Store*> JobFolderStore::Opened() const {
  if (store_ == nullptr) {
    return absl::FailedPreconditionError("kvctl run's store opens with its job (none yet)");
  }
  return store_.get();
}

absl::Status JobFolderStore::PutJob(const std::string& job_id, const v1::JobSpec& spec,
                                    const std::vector<v1::Scenario>& scenarios, int32_t priority,
                                    absl::Time submit_time, const std::string& request_id) {
  if (store_ != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("kvctl run holds one job (", path_, "); not also ", job_id));
  }
  if (job_id.empty()) return absl::InvalidArgumentError("a job without an id");
  const std::string job_dir = absl::StrCat(out_dir_, "/", job_id);
  std::error_code error;
  std::filesystem::create_directories(job_dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", job_dir, ": ", error.message()));
  }
  const std::string path = absl::StrCat(job_dir, "/", kFileName);
  KV_ASSIGN_OR_RETURN(store_, controller::SqliteStore::Open(path));
  path_ = path;
  return store_->PutJob(job_id, spec, scenarios, priority, submit_time, request_id);
}

absl::Status JobFolderStore::AddScenarios(const std::string& job_id,
                                          const std::vector<v1::Scenario>& scenarios) {
  if (store_ == nullptr) return absl::NotFoundError(absl::StrCat("no job ", job_id));
  return store_->AddScenarios(job_id, scenarios);
}

absl::StatusOr<std::string> JobFolderStore::JobIdForRequest(const std::string& request_id) {
  if (store_ == nullptr) return std::string();
  return store_->JobIdForRequest(request_id);
}

absl::StatusOr<controller::JobRecord> JobFolderStore::GetJob(const std::string& job_id) {
  if (store_ == nullptr) return absl::NotFoundError(absl::StrCat("no job ", job_id));
  return store_->GetJob(job_id);
}

absl::StatusOr<controller::JobPage> JobFolderStore::ListJobs(const controller::JobFilter& filter,
                                                             int page_size,
                                                             const std::string& page_token) {
  if (store_ == nullptr) return controller::JobPage{};
  return store_->ListJobs(filter, page_size, page_token);
}

absl::Status JobFolderStore::SetJobState(const std::string& job_id, v1::JobState state) {
  KV_ASSIGN_OR_RETURN(controller::Store * store, Opened());
  return store->SetJobState(job_id, state);
}

absl::Status JobFolderStore::UpdateJob(const std::string& job_id,
                                       const controller::JobStatusUpdate& update) {
  KV_ASSIGN_OR_RETURN(controller::Store * store, Opened());
  return store->UpdateJob(job_id, update);
}

absl::Status JobFolderStore::SetScenarioState(const std::string& job_id,
                                              const std::string& scenario_id,
                                              v1::ScenarioState state, const std::string& reason,
                                              int32_t attempt, const std::string& agent_id) {
  KV_ASSIGN_OR_RETURN(controller::Store * store, Opened());
  return store->SetScenarioState(job_id, scenario_id, state, reason, attempt, agent_id);
}

absl::StatusOr<bool> JobFolderStore::AppendEvent(const v1::Event& event) {
  KV_ASSIGN_OR_RETURN(controller::Store * store, Opened());
  return store->AppendEvent(event);
}

absl::StatusOr<std::vector<v1::RequestRecords>> JobFolderStore::ListRequests(
    const std::string& job_id, const std::string& scenario_id, int32_t attempt,
    int64_t after_first_index, int limit_chunks) {
  KV_ASSIGN_OR_RETURN(controller::Store * store, Opened());
  return store->ListRequests(job_id, scenario_id, attempt, after_first_index, limit_chunks);
}

absl::StatusOr<int64_t> JobFolderStore::PruneRequests(absl::Time before) {
  KV_ASSIGN_OR_RETURN(controller::Store * store, Opened());
  return store->PruneRequests(before);
}

absl::StatusOr<std::vector<bool>> JobFolderStore::AppendEvents(
    const std::vector<v1::Event>& events) {
  KV_ASSIGN_OR_RETURN(controller::Store * store, Opened());
  return store->AppendEvents(events);
}

absl::StatusOr<std::vector<controller::StoredEvent>> JobFolderStore::EventsForJob(
    const std::string& job_id, int64_t after_position, int limit) {
  if (store_ == nullptr) return std::vector<controller::StoredEvent>();
  return store_->EventsForJob(job_id, after_position, limit);
}

absl::StatusOr<int64_t> JobFolderStore::MaxEventSeq(const std::string& agent_id) {
  if (store_ == nullptr) return int64_t{0};
  return store_->MaxEventSeq(agent_id);
}

absl::Status JobFolderStore::PutResult(const std::string& job_id, const std::string& scenario_id,
                                       const v1::ScenarioResult& result) {
  KV_ASSIGN_OR_RETURN(controller::Store * store, Opened());
  return store->PutResult(job_id, scenario_id, result);
}

absl::StatusOr<std::vector<controller::StoredResult>> JobFolderStore::GetResults(
    const std::string& job_id) {
  if (store_ == nullptr) return std::vector<controller::StoredResult>();
  return store_->GetResults(job_id);
}

absl::Status JobFolderStore::UpsertAgent(const v1::AgentCapabilities& capabilities,
                                         absl::Time last_seen) {
  KV_ASSIGN_OR_RETURN(controller::Store * store, Opened());
  return store->UpsertAgent(capabilities, last_seen);
}

absl::StatusOr<std::vector<controller::AgentRecord>> JobFolderStore::ListAgents() {
  if (store_ == nullptr) return std::vector<controller::AgentRecord>();
  return store_->ListAgents();
}

}  // namespace kvbench::kvctl
