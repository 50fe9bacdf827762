#include "controller/core/job_manager.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"
#include "controller/results/scenario_run.h"
#include "controller/results/validity.h"
#include "controller/scheduler/scheduler.h"
#include "controller/spec/job_spec_loader.h"
#include "controller/spec/scenario_expander.h"

namespace kvbench::controller {
namespace {

bool IsTerminal(v1::ScenarioState state) {
  return state == v1::SCENARIO_STATE_SUCCEEDED || state == v1::SCENARIO_STATE_FAILED ||
         state == v1::SCENARIO_STATE_CANCELLED;
}

bool IsTerminal(v1::JobState state) {
  return state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
         state == v1::JOB_STATE_CANCELLED;
}

bool IsActive(v1::ScenarioState state) {
  return state == v1::SCENARIO_STATE_ASSIGNED || state == v1::SCENARIO_STATE_RUNNING;
}

std::string ProgressKey(const std::string& job_id, const std::string& scenario_id) {
  return absl::StrCat(job_id, "/", scenario_id);
}

}  // namespace

absl::StatusOr<std::unique_ptr<JobManager>> JobManager::Create(Store* store, Clock* clock,
                                                               Executor* executor,
                                                               JobManagerOptions options) {
  std::unique_ptr<JobManager> manager(new JobManager(store, clock, executor, options));
  KV_RETURN_IF_ERROR(manager->Recover());
  return manager;
}

JobManager::JobManager(Store* store, Clock* clock, Executor* executor, JobManagerOptions options)
    : store_(store),
      clock_(clock),
      executor_(executor),
      options_(options),
      random_(static_cast<uint64_t>(absl::ToUnixNanos(clock->Now()))) {
  check_task_ = executor_->RunEvery("controller.check_agents", options_.heartbeat_interval,
                                    [this] { CheckAgents(); });
}

JobManager::~JobManager() { executor_->Cancel(check_task_); }

void JobManager::Shutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  executor_->Cancel(check_task_);
  FlushEvents();
  for (AgentChannel* channel : agents_.Channels()) {
    channel->Close(absl::UnavailableError("the controller is shutting down"));
  }
  std::vector<std::function<void()>> wakes;
  for (auto& [job_id, watcher] : watchers_) wakes.push_back(std::move(watcher.second));
  watchers_.clear();
  for (auto& wake : wakes) wake();
}

absl::Status JobManager::Recover() {
  KV_ASSIGN_OR_RETURN(std::vector<AgentRecord> agents, store_->ListAgents());
  const absl::Duration now = clock_->Monotonic();
  for (const AgentRecord& agent : agents) agents_.Remember(agent.capabilities, now);
  std::string token;
  do {
    KV_ASSIGN_OR_RETURN(JobPage page, store_->ListJobs(JobFilter{}, kMaxJobPageSize, token));
    for (JobRecord& job : page.jobs) {
      for (const ScenarioRecord& scenario : job.scenarios) {
        if (!IsActive(scenario.state)) continue;
        // It waits one heartbeat timeout for its agent to come back (CheckAgents).
        v1::AgentCapabilities unknown;
        unknown.set_agent_id(scenario.agent_id);
        agents_.Remember(unknown, now);
        AgentEntry* agent = agents_.Find(scenario.agent_id);
        agent->running_job_id = job.job_id;
        agent->running_scenario_id = scenario.scenario.scenario_id();
      }
      submit_seq_[job.job_id] = static_cast<int64_t>(submit_order_.size());
      submit_order_.push_back(job.job_id);
      std::string job_id = job.job_id;
      jobs_.emplace(job_id, std::move(job));
    }
    token = page.next_page_token;
  } while (!token.empty());
  KV_ASSIGN_OR_RETURN(controller_seq_, store_->MaxEventSeq(kControllerEventSource));
  if (!jobs_.empty()) KV_LOG(INFO) << "recovered jobs=" << jobs_.size();
  RequestSchedule();
  return absl::OkStatus();
}

std::string JobManager::NewJobId(const std::string& name) {
  std::string id;
  do {
    id = absl::StrFormat("%s-%s-%04x", name,
                         absl::FormatTime("%Y%m%dT%H%M%S", clock_->Now(), absl::UTCTimeZone()),
                         static_cast<unsigned>(random_() & 0xffff));
  } while (jobs_.count(id) > 0);
  return id;
}

absl::StatusOr<v1::SubmitJobResponse> JobManager::SubmitJob(const v1::SubmitJobRequest& request) {
  if (!request.request_id().empty()) {
    KV_ASSIGN_OR_RETURN(std::string existing, store_->JobIdForRequest(request.request_id()));
    if (!existing.empty()) {
      v1::SubmitJobResponse response;
      response.set_job_id(existing);
      for (const ScenarioRecord& scenario : jobs_.at(existing).scenarios) {
        *response.add_scenarios() = scenario.scenario;
      }
      return response;
    }
  }
  KV_ASSIGN_OR_RETURN(v1::JobSpec spec, spec::NormalizeJobSpec(request.spec(), "job spec"));
  const std::string job_id = NewJobId(spec.name());
  std::vector<v1::Scenario> scenarios = spec::ExpandScenarios(spec, job_id);
  const absl::Time now = clock_->Now();
  KV_RETURN_IF_ERROR(
      store_->PutJob(job_id, spec, scenarios, spec.priority(), now, request.request_id()));
  JobRecord job;
  job.job_id = job_id;
  job.spec = spec;
  job.priority = spec.priority();
  job.submit_time = now;
  job.request_id = request.request_id();
  v1::SubmitJobResponse response;
  response.set_job_id(job_id);
  for (const v1::Scenario& scenario : scenarios) {
    ScenarioRecord& record = job.scenarios.emplace_back();
    record.scenario = scenario;
    *response.add_scenarios() = scenario;
  }
  submit_seq_[job_id] = static_cast<int64_t>(submit_order_.size());
  submit_order_.push_back(job_id);
  jobs_.emplace(job_id, std::move(job));
  KV_LOG(INFO) << "job submitted job=" << job_id << " scenarios=" << scenarios.size();
  RequestSchedule();
  return response;
}

absl::StatusOr<v1::Job> JobManager::GetJob(const std::string& job_id) const {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return absl::NotFoundError(absl::StrCat("no job ", job_id));
  return ToJobProto(it->second, /*with_results=*/true);
}

absl::StatusOr<v1::ListJobsResponse> JobManager::ListJobs(
    const v1::ListJobsRequest& request) const {
  if (request.page_size() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size ", request.page_size(), " is negative"));
  }
  const int page_size = request.page_size() == 0 ? 50 : std::min(request.page_size(), 1000);
  // Newest first; the token is the submission index to continue below.
  int64_t below = static_cast<int64_t>(submit_order_.size());
  if (!request.page_token().empty() &&
      (!absl::SimpleAtoi(request.page_token(), &below) || below < 0 ||
       below > static_cast<int64_t>(submit_order_.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_token \"", request.page_token(), "\" is not one ListJobs returned"));
  }
  v1::ListJobsResponse response;
  for (int64_t i = below - 1; i >= 0; --i) {
    const JobRecord& job = jobs_.at(submit_order_[i]);
    if (request.states_size() > 0 && std::find(request.states().begin(), request.states().end(),
                                               job.state) == request.states().end()) {
      continue;
    }
    if (!absl::StartsWith(job.spec.name(), request.name_prefix())) continue;
    bool labels_match = true;
    for (const auto& [key, value] : request.labels()) {
      auto label = job.spec.labels().find(key);
      labels_match &= label != job.spec.labels().end() && label->second == value;
    }
    if (!labels_match) continue;
    if (response.jobs_size() == page_size) {
      response.set_next_page_token(absl::StrCat(i + 1));
      break;
    }
    *response.add_jobs() = ToJobProto(job, /*with_results=*/false);
  }
  return response;
}

absl::StatusOr<v1::Job> JobManager::CancelJob(const v1::CancelJobRequest& request) {
  JobRecord* job = FindJob(request.job_id());
  if (job == nullptr) return absl::NotFoundError(absl::StrCat("no job ", request.job_id()));
  if (IsTerminal(job->state)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job->job_id, " already ended: ", v1::JobState_Name(job->state)));
  }
  const std::string reason = request.reason().empty()
                                 ? "cancelled by the user"
                                 : absl::StrCat("cancelled: ", request.reason());
  for (ScenarioRecord& scenario : job->scenarios) {
    if (IsTerminal(scenario.state)) continue;
    if (IsActive(scenario.state)) {
      AgentEntry* agent = agents_.Find(scenario.agent_id);
      if (agent != nullptr && agent->channel != nullptr) {
        v1::ControllerMessage message;
        message.mutable_cancel()->set_scenario_id(scenario.scenario.scenario_id());
        message.mutable_cancel()->set_reason(reason);
        agent->channel->Send(std::move(message));
      }
      // The agent stays busy until it reports the scenario torn down (or goes silent).
    }
    KV_RETURN_IF_ERROR(SetScenario(*job, scenario, v1::SCENARIO_STATE_CANCELLED, reason));
    RecordControllerEvent(*job, scenario, v1::SCENARIO_STATE_CANCELLED, reason);
  }
  KV_LOG(INFO) << "job cancelled job=" << job->job_id;
  return ToJobProto(*job, /*with_results=*/true);
}

v1::ListAgentsResponse JobManager::ListAgents() const {
  v1::ListAgentsResponse response;
  for (v1::AgentView& view : agents_.Views()) *response.add_agents() = std::move(view);
  return response;
}

JobRecord* JobManager::FindJob(const std::string& job_id) {
  auto it = jobs_.find(job_id);
  return it == jobs_.end() ? nullptr : &it->second;
}

ScenarioRecord* JobManager::FindScenario(JobRecord& job, const std::string& scenario_id) {
  for (ScenarioRecord& scenario : job.scenarios) {
    if (scenario.scenario.scenario_id() == scenario_id) return &scenario;
  }
  return nullptr;
}

v1::Job JobManager::ToJobProto(const JobRecord& job, bool with_results) const {
  v1::Job proto;
  proto.set_job_id(job.job_id);
  *proto.mutable_spec() = job.spec;
  proto.set_state(job.state);
  proto.set_submit_unix_ms(absl::ToUnixMillis(job.submit_time));
  if (job.start_time != absl::InfinitePast()) {
    proto.set_start_unix_ms(absl::ToUnixMillis(job.start_time));
  }
  if (job.end_time != absl::InfinitePast()) proto.set_end_unix_ms(absl::ToUnixMillis(job.end_time));
  proto.set_error(job.error);
  std::map<std::string, v1::ScenarioResult> results;
  if (with_results) {
    absl::StatusOr<std::vector<StoredResult>> stored = store_->GetResults(job.job_id);
    if (stored.ok()) {
      for (StoredResult& result : *stored) results[result.scenario_id] = std::move(result.result);
    } else {
      KV_LOG(WARNING) << "results unreadable job=" << job.job_id << " error=" << stored.status();
    }
  }
  for (const ScenarioRecord& scenario : job.scenarios) {
    v1::ScenarioStatus* status = proto.add_scenarios();
    *status->mutable_scenario() = scenario.scenario;
    status->set_state(scenario.state);
    status->set_agent_id(scenario.agent_id);
    status->set_attempt(scenario.attempt);
    status->set_error(scenario.reason);
    const std::string& id = scenario.scenario.scenario_id();
    if (auto result = results.find(id); result != results.end()) {
      *status->mutable_result() = result->second;
    }
    if (auto progress = progress_.find(ProgressKey(job.job_id, id)); progress != progress_.end()) {
      *status->mutable_progress() = progress->second;
    }
  }
  if (with_results) {
    for (v1::Validity& validity : results::ComputeValidity(results::RunsOfJob(proto))) {
      *proto.add_validity() = std::move(validity);
    }
  }
  return proto;
}

}  // namespace kvbench::controller
