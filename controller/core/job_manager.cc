#include "controller/core/job_manager.h"

#include "absl/strings/str_cat.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"
#include "controller/core/job_views.h"
#include "controller/core/request_views.h"

namespace kvbench::controller {

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
      jobs_(store, clock, options.max_scenario_attempts, options.only_job_id,
            JobStateHooks{[this](const std::string& job_id) { watchers_.Notify(job_id); },
                          [this] { RequestSchedule(); },
                          [this](const std::string& agent_id, const std::string& scenario_id) {
                            agents_.Release(agent_id, scenario_id);
                          },
                          [this](const std::string& agent_id, const v1::ScenarioAttempt& attempt,
                                 const std::string& reason) {
                            agents_.StopOnAgent(agent_id, attempt, reason);
                          },
                          [this] {
                            std::vector<v1::AgentCapabilities> known;
                            for (const v1::AgentView& view : agents_.registry().Views()) {
                              known.push_back(view.capabilities());
                            }
                            return known;
                          }}),
      agents_(store, clock, &jobs_,
              AgentTimeouts{options.heartbeat_interval, options.heartbeat_timeout},
              [this] { RequestSchedule(); }),
      ingest_(store, executor, [this](const v1::Event& event) { ApplyEvent(event); }),
      dispatcher_(&jobs_, &agents_.registry(), options.fail_unplaceable) {
  check_task_ = executor_->RunEvery("controller.check_agents", options_.heartbeat_interval, [this] {
    agents_.CheckAgents();
    stats_.assignments_timed_out += jobs_.TimeOutAssignments(options_.assignment_timeout);
    stats_.attempts_silent += jobs_.TimeOutSilentAttempts(options_.event_silence_timeout);
    jobs_.FailOverdueJobs();
    dispatcher_.FailOverdueAgentWaits(clock_->Now());
  });
}

JobManager::~JobManager() { executor_->Cancel(check_task_); }

absl::Status JobManager::Recover() {
  KV_RETURN_IF_ERROR(jobs_.Recover());
  KV_RETURN_IF_ERROR(agents_.Recover());
  RequestSchedule();
  return absl::OkStatus();
}

void JobManager::Shutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  executor_->Cancel(check_task_);
  ingest_.Flush();
  agents_.CloseAll(absl::UnavailableError("the controller is shutting down"));
  watchers_.WakeAll();
}

absl::StatusOr<v1::SubmitJobResponse> JobManager::SubmitJob(const v1::SubmitJobRequest& request) {
  return jobs_.Submit(request);
}

absl::StatusOr<v1::Job> JobManager::GetJob(const std::string& job_id) const {
  const JobRecord* job = jobs_.table().Find(job_id);
  if (job == nullptr) return absl::NotFoundError(absl::StrCat("no job ", job_id));
  return ToJobProto(*job, jobs_.table(), store_, /*with_results=*/true);
}

absl::StatusOr<v1::ListJobsResponse> JobManager::ListJobs(
    const v1::ListJobsRequest& request) const {
  return ListJobViews(jobs_.table(), store_, request);
}

absl::StatusOr<v1::Job> JobManager::CancelJob(const v1::CancelJobRequest& request) {
  return jobs_.Cancel(request);
}

v1::ListAgentsResponse JobManager::ListAgents() const {
  v1::ListAgentsResponse response;
  for (v1::AgentView& view : agents_.registry().Views()) *response.add_agents() = std::move(view);
  return response;
}

absl::StatusOr<v1::ListRequestsResponse> JobManager::ListRequests(
    const v1::ListRequestsRequest& request) const {
  return ListRequestViews(jobs_.table(), store_, request);
}

absl::StatusOr<int64_t> JobManager::PruneRequests(absl::Time before) {
  return store_->Events().PruneRequests(before);
}

absl::StatusOr<WatchBatch> JobManager::WatchEvents(const std::string& job_id,
                                                   int64_t after_position) {
  if (shutting_down_) return absl::UnavailableError("the controller is shutting down");
  const JobRecord* job = jobs_.table().Find(job_id);
  if (job == nullptr) return absl::NotFoundError(absl::StrCat("no job ", job_id));
  return ReadWatchBatch(store_, job_id, job->state, after_position);
}

uint64_t JobManager::AddWatcher(const std::string& job_id, std::function<void()> wake) {
  return watchers_.Add(job_id, std::move(wake));
}

void JobManager::RemoveWatcher(uint64_t watcher_id) { watchers_.Remove(watcher_id); }

void JobManager::RecordAlert(const v1::RegressionAlert& alert) {
  v1::Event event;
  event.set_job_id(alert.job_id());
  event.set_scenario_id(alert.scenario_id());
  *event.mutable_alert() = alert;
  jobs_.RecordJobEvent(std::move(event));
}

absl::Status JobManager::OnAgentMessage(AgentChannel* channel, const v1::AgentMessage& message) {
  const bool first = registered_channels_.insert(channel).second;
  if (first != (message.message_case() == v1::AgentMessage::kRegister)) {
    return absl::InvalidArgumentError(first ? "the first message must be Register"
                                            : "Register sent twice on one stream");
  }
  switch (message.message_case()) {
    case v1::AgentMessage::kRegister:
      return OnRegister(channel, message.register_());
    case v1::AgentMessage::kHeartbeat:
      agents_.OnHeartbeat(channel, message.heartbeat());
      return absl::OkStatus();
    case v1::AgentMessage::kEvent:
      return OnEvent(channel, message.event());
    default:
      return absl::InvalidArgumentError("an AgentMessage without a payload");
  }
}

absl::Status JobManager::OnRegister(AgentChannel* channel, const v1::Register& message) {
  if (message.capabilities().agent_id().empty()) {
    return absl::InvalidArgumentError("Register without capabilities.agent_id");
  }
  ingest_.Flush();  // the acked_seq OnRegister answers must count what this agent sent before
  return agents_.OnRegister(channel, message);
}

absl::Status JobManager::OnEvent(AgentChannel* channel, const v1::Event& event) {
  KV_RETURN_IF_ERROR(agents_.AcceptEvent(channel, event));
  const EventAdmission::Verdict verdict = jobs_.AdmitAgentEvent(event);
  if (verdict == EventAdmission::Verdict::kAdmitted) {
    ingest_.Queue(channel, event);
    return absl::OkStatus();
  }
  // Refused, yet acknowledged in its turn: the agent's spool would otherwise resend it on every
  // stream for ever; a well-behaved agent sends none (a superseded attempt's late events are
  // admitted), so what is refused is a rogue's or a confused agent's, and consuming it costs
  // nothing. The stream stays up: ending it would only bring the same event back.
  int64_t& counter = verdict == EventAdmission::Verdict::kUnknownJob ? stats_.refused_unknown_job
                     : verdict == EventAdmission::Verdict::kNotOwner
                         ? stats_.refused_not_owner
                         : stats_.refused_controller_only;
  ++counter;
  KV_LOG_EVERY_N_SEC(WARNING, 10) << "refused an agent's event agent=" << event.agent_id()
                                  << " reason=" << EventAdmission::CounterName(verdict)
                                  << " job=" << event.job_id()
                                  << " scenario=" << event.scenario_id()
                                  << " attempt=" << event.attempt() << " seq=" << event.seq()
                                  << " count=" << counter;
  ingest_.QueueRefused(channel, event.seq());
  return absl::OkStatus();
}

void JobManager::OnDisconnect(AgentChannel* channel) {
  ingest_.Forget(channel);
  registered_channels_.erase(channel);
  agents_.OnDisconnect(channel);
}

void JobManager::ApplyEvent(const v1::Event& event) {
  jobs_.ApplyAgentEvent(event);
  watchers_.Notify(event.job_id());
}

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
  const ScenarioDispatcher::Round round = dispatcher_.RunRound();
  stats_.last_round_scenarios_visited = static_cast<int64_t>(round.scenarios_visited);
  if (round.scenarios_visited == 0) return;
  ++stats_.scheduling_rounds;
  stats_.last_scheduling_duration = clock_->Monotonic() - started;
}

const JobManager::Stats& JobManager::stats() const {
  stats_.heartbeats = agents_.heartbeats();
  stats_.events_stored = ingest_.counters().stored;
  stats_.events_duplicate = ingest_.counters().duplicate;
  stats_.events_stale = jobs_.stale_events();
  stats_.event_commits = ingest_.counters().commits;
  stats_.refused_bad_seq = agents_.bad_seqs();
  stats_.agents_connected = agents_.registry().connected_count();
  return stats_;
}

}  // namespace kvbench::controller
