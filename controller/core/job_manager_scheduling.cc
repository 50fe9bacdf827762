// JobManager: scheduling rounds, scenario and job transitions, lost agents, watchers.

#include "absl/strings/str_cat.h"
#include "common/log/logging.h"
#include "controller/core/job_manager.h"
#include "controller/core/job_outcome.h"
#include "controller/scheduler/scheduler.h"

namespace kvbench::controller {
namespace {

bool IsTerminal(v1::ScenarioState state) {
  return state == v1::SCENARIO_STATE_SUCCEEDED || state == v1::SCENARIO_STATE_FAILED ||
         state == v1::SCENARIO_STATE_CANCELLED;
}

}  // namespace

void JobManager::RequestSchedule() {
  if (schedule_posted_) return;
  schedule_posted_ = true;
  executor_->Post("controller.schedule", [this] {
    schedule_posted_ = false;
    ScheduleNow();
  });
}

void JobManager::ScheduleNow() {
  const absl::Duration started = clock_->Monotonic();
  std::vector<QueuedScenario> queue;
  for (auto& [job_id, job] : jobs_) {
    for (const ScenarioRecord& scenario : job.scenarios) {
      if (scenario.state != v1::SCENARIO_STATE_PENDING) continue;
      QueuedScenario& queued = queue.emplace_back();
      queued.job_id = job_id;
      queued.scenario = scenario.scenario;
      queued.spec = &job.spec;
      queued.priority = job.priority;
      queued.submit_seq = submit_seq_[job_id];
    }
  }
  if (queue.empty()) return;
  ScheduleResult result = Schedule(queue, agents_.Views());
  for (const Placement& placement : result.placements) {
    JobRecord* job = FindJob(placement.job_id);
    ScenarioRecord* scenario = job == nullptr ? nullptr : FindScenario(*job, placement.scenario_id);
    AgentEntry* agent = agents_.Find(placement.agent_id);
    if (scenario != nullptr && agent != nullptr && agent->channel != nullptr) {
      Assign(*job, *scenario, *agent);
    }
  }
  // A scenario no agent can run keeps waiting (agents may join); its reason says why.
  for (const Unplaceable& unplaceable : result.unplaceable) {
    JobRecord* job = FindJob(unplaceable.job_id);
    ScenarioRecord* scenario =
        job == nullptr ? nullptr : FindScenario(*job, unplaceable.scenario_id);
    if (scenario != nullptr) scenario->reason = "waiting: " + unplaceable.reason;
  }
  ++stats_.scheduling_rounds;
  stats_.last_scheduling_duration = clock_->Monotonic() - started;
}

void JobManager::Assign(JobRecord& job, ScenarioRecord& scenario, AgentEntry& agent) {
  const std::string& agent_id = agent.capabilities.agent_id();
  absl::Status stored =
      store_->SetScenarioState(job.job_id, scenario.scenario.scenario_id(),
                               v1::SCENARIO_STATE_ASSIGNED, "", scenario.attempt + 1, agent_id);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot record an assignment job=" << job.job_id
                  << " scenario=" << scenario.scenario.scenario_id() << " error=" << stored;
    return;
  }
  scenario.state = v1::SCENARIO_STATE_ASSIGNED;
  scenario.reason.clear();
  scenario.attempt += 1;
  scenario.agent_id = agent_id;
  agent.running_job_id = job.job_id;
  agent.running_scenario_id = scenario.scenario.scenario_id();
  if (job.state == v1::JOB_STATE_QUEUED) {
    JobStatusUpdate update;
    update.state = v1::JOB_STATE_RUNNING;
    update.start_time = clock_->Now();
    if (store_->UpdateJob(job.job_id, update).ok()) {
      job.state = update.state;
      job.start_time = update.start_time;
    }
  }
  v1::ControllerMessage message;
  v1::Assignment* assignment = message.mutable_assignment();
  *assignment->mutable_scenario() = scenario.scenario;
  *assignment->mutable_spec() = job.spec;
  assignment->set_attempt(scenario.attempt);
  agent.channel->Send(std::move(message));
  KV_LOG(INFO) << "assigned job=" << job.job_id << " scenario=" << scenario.scenario.scenario_id()
               << " agent=" << agent_id << " attempt=" << scenario.attempt;
  RecordControllerEvent(
      job, scenario, v1::SCENARIO_STATE_ASSIGNED,
      absl::StrCat("assigned to ", agent_id, " (attempt ", scenario.attempt, ")"));
}

absl::Status JobManager::SetScenario(JobRecord& job, ScenarioRecord& scenario,
                                     v1::ScenarioState state, const std::string& reason) {
  absl::Status stored = store_->SetScenarioState(job.job_id, scenario.scenario.scenario_id(), state,
                                                 reason, scenario.attempt, scenario.agent_id);
  if (!stored.ok()) return stored;
  scenario.state = state;
  scenario.reason = reason;
  if (IsTerminal(state)) FinishJobIfDone(job);
  return absl::OkStatus();
}

void JobManager::LoseScenario(JobRecord& job, ScenarioRecord& scenario, const std::string& why) {
  const bool retry = scenario.attempt < options_.max_scenario_attempts;
  const std::string reason =
      retry ? absl::StrCat(why, "; requeued (attempt ", scenario.attempt, " of ",
                           options_.max_scenario_attempts, ")")
            : absl::StrCat(why, "; failed after ", scenario.attempt, " attempts");
  KV_LOG(WARNING) << "scenario lost job=" << job.job_id
                  << " scenario=" << scenario.scenario.scenario_id()
                  << " agent=" << scenario.agent_id << " reason=\"" << reason << "\"";
  RecordControllerEvent(job, scenario, v1::SCENARIO_STATE_LOST, reason);
  absl::Status stored = SetScenario(
      job, scenario, retry ? v1::SCENARIO_STATE_PENDING : v1::SCENARIO_STATE_FAILED, reason);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot record a lost scenario job=" << job.job_id << " error=" << stored;
  }
  RequestSchedule();
}

void JobManager::FinishJobIfDone(JobRecord& job) {
  if (job.state == v1::JOB_STATE_SUCCEEDED || job.state == v1::JOB_STATE_FAILED ||
      job.state == v1::JOB_STATE_CANCELLED) {
    return;
  }
  std::vector<ScenarioOutcome> scenarios;
  for (const ScenarioRecord& scenario : job.scenarios) {
    scenarios.push_back({scenario.scenario.scenario_id(), scenario.state, scenario.reason});
  }
  // The same rule as kvctl run's (job_outcome.h).
  const JobOutcome outcome = DecideJobOutcome(scenarios);
  if (outcome.state == v1::JOB_STATE_RUNNING) return;
  JobStatusUpdate update;
  update.state = outcome.state;
  update.error = outcome.error;
  update.start_time = job.start_time;
  update.end_time = clock_->Now();
  absl::Status stored = store_->UpdateJob(job.job_id, update);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot record the end of a job job=" << job.job_id << " error=" << stored;
    return;
  }
  job.state = update.state;
  job.end_time = update.end_time;
  job.error = update.error;
  KV_LOG(INFO) << "job ended job=" << job.job_id << " state=" << v1::JobState_Name(job.state);
  Notify(job.job_id);
}

void JobManager::FreeAgentOf(const ScenarioRecord& scenario) {
  AgentEntry* agent = agents_.Find(scenario.agent_id);
  if (agent != nullptr && agent->running_scenario_id == scenario.scenario.scenario_id()) {
    agent->running_scenario_id.clear();
    agent->running_job_id.clear();
    RequestSchedule();
  }
}

void JobManager::CheckAgents() {
  const absl::Duration now = clock_->Monotonic();
  for (const std::string& agent_id : agents_.Silent(now, options_.heartbeat_timeout)) {
    AgentEntry* agent = agents_.Find(agent_id);
    if (agent->channel != nullptr) {
      KV_LOG(WARNING) << "agent missed heartbeats agent=" << agent_id;
      AgentChannel* channel = agent->channel;
      agents_.Detach(channel);
      channel->Close(absl::UnavailableError("heartbeats missed past the timeout"));
    }
    if (agent->running_scenario_id.empty()) continue;
    JobRecord* job = FindJob(agent->running_job_id);
    ScenarioRecord* scenario =
        job == nullptr ? nullptr : FindScenario(*job, agent->running_scenario_id);
    agent->running_scenario_id.clear();
    agent->running_job_id.clear();
    if (scenario != nullptr && !IsTerminal(scenario->state) &&
        scenario->state != v1::SCENARIO_STATE_PENDING && scenario->agent_id == agent_id) {
      LoseScenario(*job, *scenario,
                   absl::StrCat("agent ", agent_id, " silent for over ",
                                absl::FormatDuration(options_.heartbeat_timeout)));
    }
  }
  stats_.agents_connected = agents_.connected_count();
}

void JobManager::RecordControllerEvent(const JobRecord& job, const ScenarioRecord& scenario,
                                       v1::ScenarioState state, const std::string& reason) {
  v1::Event event;
  event.set_seq(++controller_seq_);
  event.set_agent_id(kControllerEventSource);
  event.set_job_id(job.job_id);
  event.set_scenario_id(scenario.scenario.scenario_id());
  event.set_unix_ms(absl::ToUnixMillis(clock_->Now()));
  event.mutable_state_change()->set_state(state);
  event.mutable_state_change()->set_reason(reason);
  absl::StatusOr<bool> stored = store_->AppendEvent(event);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot store a controller event job=" << job.job_id
                  << " error=" << stored.status();
    return;
  }
  Notify(job.job_id);
}

uint64_t JobManager::AddWatcher(const std::string& job_id, std::function<void()> wake) {
  const uint64_t id = next_watcher_id_++;
  watchers_.emplace(job_id, std::make_pair(id, std::move(wake)));
  return id;
}

void JobManager::RemoveWatcher(uint64_t watcher_id) {
  for (auto it = watchers_.begin(); it != watchers_.end(); ++it) {
    if (it->second.first == watcher_id) {
      watchers_.erase(it);
      return;
    }
  }
}

void JobManager::Notify(const std::string& job_id) {
  auto [begin, end] = watchers_.equal_range(job_id);
  if (begin == end) return;
  std::vector<std::function<void()>> wakes;
  for (auto it = begin; it != end; ++it) wakes.push_back(std::move(it->second.second));
  watchers_.erase(begin, end);
  for (auto& wake : wakes) wake();
}

absl::StatusOr<WatchBatch> JobManager::WatchEvents(const std::string& job_id,
                                                   int64_t after_position) {
  if (shutting_down_) return absl::UnavailableError("the controller is shutting down");
  JobRecord* job = FindJob(job_id);
  if (job == nullptr) return absl::NotFoundError(absl::StrCat("no job ", job_id));
  // The state is read before the events, so "done" is never claimed with an event unread.
  const v1::JobState state = job->state;
  absl::StatusOr<std::vector<StoredEvent>> events =
      store_->EventsForJob(job_id, after_position, kWatchBatch);
  if (!events.ok()) return events.status();
  WatchBatch batch;
  for (StoredEvent& stored : *events) {
    v1::WatchJobResponse& response = batch.events.emplace_back();
    response.set_position(stored.position);
    *response.mutable_event() = std::move(stored.event);
    response.set_job_state(state);
  }
  batch.job_done = (state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
                    state == v1::JOB_STATE_CANCELLED) &&
                   static_cast<int>(batch.events.size()) < kWatchBatch;
  return batch;
}

}  // namespace kvbench::controller
