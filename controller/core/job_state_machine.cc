#include "controller/core/job_state_machine.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/lifecycle/lifecycle.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"
#include "controller/core/job_capacity.h"
#include "controller/core/job_outcome.h"
#include "controller/core/job_views.h"
#include "controller/placement/placement.h"
#include "controller/spec/job_spec_loader.h"
#include "controller/spec/scenario_expander.h"
#include "controller/spec/search_spec_validator.h"
#include "google/protobuf/util/message_differencer.h"

namespace kvbench::controller {

std::string FormatJobId(const std::string& name, absl::Time submitted, uint64_t random) {
  return absl::StrFormat("%s-%s-%04x", name,
                         absl::FormatTime("%Y%m%dT%H%M%S", submitted, absl::UTCTimeZone()),
                         static_cast<unsigned>(random & 0xffff));
}

JobStateMachine::JobStateMachine(Store* store, Clock* clock, int max_scenario_attempts,
                                 std::string only_job_id, JobStateHooks hooks)
    : store_(store),
      clock_(clock),
      max_scenario_attempts_(max_scenario_attempts),
      only_job_id_(std::move(only_job_id)),
      hooks_(std::move(hooks)),
      random_(static_cast<uint64_t>(absl::ToUnixNanos(clock->Now()))) {}

absl::Status JobStateMachine::Recover() {
  std::string token;
  do {
    KV_ASSIGN_OR_RETURN(JobPage page, store_->Jobs().ListJobs(JobFilter{}, kMaxJobPageSize, token));
    for (JobRecord& job : page.jobs) table_.Add(std::move(job));
    token = page.next_page_token;
  } while (!token.empty());
  KV_ASSIGN_OR_RETURN(controller_seq_, store_->Events().MaxEventSeq(kControllerEventSource));
  if (table_.size() > 0) KV_LOG(INFO) << "recovered jobs=" << table_.size();
  // A job stopped between its last scenario's end and what follows it (its own end, or a
  // capacity search's next round) takes that step now.
  const std::vector<std::string> job_ids = table_.submit_order();
  for (const std::string& job_id : job_ids) {
    JobRecord* job = table_.Find(job_id);
    if (IsJobEnded(job->state) || job->scenarios.empty()) continue;
    const bool all_ended =
        std::all_of(job->scenarios.begin(), job->scenarios.end(),
                    [](const ScenarioRecord& scenario) { return IsScenarioEnded(scenario.state); });
    if (all_ended) FinishJobIfDone(*job);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> JobStateMachine::NewJobId(const std::string& name) {
  if (!only_job_id_.empty()) {
    if (table_.Find(only_job_id_) != nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("this controller holds one job, ", only_job_id_, "; not also another"));
    }
    return only_job_id_;
  }
  std::string id;
  do {
    id = FormatJobId(name, clock_->Now(), random_());
  } while (table_.Find(id) != nullptr);
  return id;
}

absl::StatusOr<v1::SubmitJobResponse> JobStateMachine::Resubmitted(const std::string& request_id,
                                                                   const v1::JobSpec& spec) {
  KV_ASSIGN_OR_RETURN(std::string existing, store_->Jobs().JobIdForRequest(request_id));
  v1::SubmitJobResponse response;
  if (existing.empty()) return response;
  const JobRecord* job = table_.Find(existing);
  // A retry carries the same spec; another spec under the same key is a caller's bug (two jobs
  // sharing one id), not a retry to answer with the first job.
  if (!google::protobuf::util::MessageDifferencer::Equals(job->spec, spec)) {
    return absl::AlreadyExistsError(absl::StrCat("request_id \"", request_id,
                                                 "\" was already used for job ", existing,
                                                 " with a different spec"));
  }
  response.set_job_id(existing);
  for (const ScenarioRecord& scenario : job->scenarios)
    *response.add_scenarios() = scenario.scenario;
  return response;
}

absl::StatusOr<std::vector<std::string>> JobStateMachine::AgentsSelected(
    const v1::JobSpec& spec) const {
  std::vector<std::string> selected;
  std::vector<std::string> others;
  for (const v1::AgentCapabilities& agent : hooks_.known_agents()) {
    if (HasLabels(agent, spec.placement().agent_labels())) {
      selected.push_back(agent.agent_id());
    } else {
      others.push_back(absl::StrCat(agent.agent_id(), " (", LabelsText(agent.labels()), ")"));
    }
  }
  if (selected.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("placement: no agent the controller knows has the labels ",
                     LabelsText(spec.placement().agent_labels()),
                     " (known: ", others.empty() ? "none" : absl::StrJoin(others, ", "), ")"));
  }
  std::sort(selected.begin(), selected.end());
  return selected;
}

absl::StatusOr<v1::SubmitJobResponse> JobStateMachine::Submit(const v1::SubmitJobRequest& request) {
  KV_ASSIGN_OR_RETURN(v1::JobSpec spec, spec::NormalizeJobSpec(request.spec(), "job spec"));
  if (!request.request_id().empty()) {
    KV_ASSIGN_OR_RETURN(v1::SubmitJobResponse existing, Resubmitted(request.request_id(), spec));
    if (!existing.job_id().empty()) return existing;
  }
  KV_ASSIGN_OR_RETURN(const std::string job_id, NewJobId(spec.name()));
  std::vector<v1::Scenario> scenarios;
  if (spec.placement().fan_out() == v1::FAN_OUT_EACH) {
    KV_ASSIGN_OR_RETURN(std::vector<std::string> agent_ids, AgentsSelected(spec));
    scenarios = spec::ExpandScenariosOnAgents(spec, job_id, agent_ids);
  } else {
    scenarios = spec::ExpandScenarios(spec, job_id);
  }
  const absl::Time now = clock_->Now();
  KV_RETURN_IF_ERROR(
      store_->Jobs().PutJob(job_id, spec, scenarios, spec.priority(), now, request.request_id()));
  JobRecord job;
  job.job_id = job_id;
  job.spec = spec;
  job.priority = spec.priority();
  job.submit_time = now;
  job.request_id = request.request_id();
  v1::SubmitJobResponse response;
  response.set_job_id(job_id);
  for (const v1::Scenario& scenario : scenarios) {
    job.scenarios.emplace_back().scenario = scenario;
    *response.add_scenarios() = scenario;
  }
  table_.Add(std::move(job));
  KV_LOG(INFO) << "job submitted job=" << job_id << " scenarios=" << scenarios.size();
  hooks_.request_schedule();
  return response;
}

absl::StatusOr<v1::Job> JobStateMachine::Cancel(const v1::CancelJobRequest& request) {
  JobRecord* job = table_.Find(request.job_id());
  if (job == nullptr) return absl::NotFoundError(absl::StrCat("no job ", request.job_id()));
  if (IsJobEnded(job->state)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job->job_id, " already ended: ", v1::JobState_Name(job->state)));
  }
  const std::string reason = request.reason().empty()
                                 ? "cancelled by the user"
                                 : absl::StrCat("cancelled: ", request.reason());
  for (ScenarioRecord& scenario : job->scenarios) {
    if (IsScenarioEnded(scenario.state)) continue;
    StopOnItsAgent(*job, scenario, reason);
    KV_RETURN_IF_ERROR(SetScenario(*job, scenario, v1::SCENARIO_STATE_CANCELLED, reason));
    RecordControllerEvent(*job, scenario, v1::SCENARIO_STATE_CANCELLED, reason);
  }
  KV_LOG(INFO) << "job cancelled job=" << job->job_id;
  return ToJobProto(*job, table_, store_, /*with_results=*/true);
}

bool JobStateMachine::Assign(JobRecord& job, ScenarioRecord& scenario, const std::string& agent_id,
                             const std::function<void(v1::Assignment)>& send) {
  absl::Status stored = store_->Jobs().SetScenarioState(job.job_id, scenario.scenario.scenario_id(),
                                                        v1::SCENARIO_STATE_ASSIGNED, "",
                                                        scenario.attempt + 1, agent_id);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot record an assignment job=" << job.job_id
                  << " scenario=" << scenario.scenario.scenario_id() << " error=" << stored;
    return false;
  }
  scenario.reason.clear();
  scenario.attempt += 1;
  table_.Move(job, scenario, v1::SCENARIO_STATE_ASSIGNED, agent_id);
  admission_.Assigned(job.job_id, scenario.scenario.scenario_id(), scenario.attempt, agent_id);
  assigned_at_[AssignmentKey(job, scenario)] = clock_->Monotonic();
  if (job.state == v1::JOB_STATE_QUEUED) {
    JobStatusUpdate update;
    update.state = v1::JOB_STATE_RUNNING;
    update.start_time = clock_->Now();
    if (store_->Jobs().UpdateJob(job.job_id, update).ok()) {
      job.state = update.state;
      job.start_time = update.start_time;
    }
  }
  v1::Assignment assignment;
  *assignment.mutable_scenario() = scenario.scenario;
  *assignment.mutable_spec() = job.spec;
  assignment.set_attempt(scenario.attempt);
  send(std::move(assignment));
  KV_LOG(INFO) << "assigned job=" << job.job_id << " scenario=" << scenario.scenario.scenario_id()
               << " agent=" << agent_id << " attempt=" << scenario.attempt;
  RecordControllerEvent(
      job, scenario, v1::SCENARIO_STATE_ASSIGNED,
      absl::StrCat("assigned to ", agent_id, " (attempt ", scenario.attempt, ")"));
  return true;
}

absl::Status JobStateMachine::SetScenario(JobRecord& job, ScenarioRecord& scenario,
                                          v1::ScenarioState state, const std::string& reason) {
  return SetScenarioOn(job, scenario, state, reason, scenario.agent_id);
}

absl::Status JobStateMachine::SetScenarioOn(JobRecord& job, ScenarioRecord& scenario,
                                            v1::ScenarioState state, const std::string& reason,
                                            std::string agent_id) {
  KV_RETURN_IF_ERROR(store_->Jobs().SetScenarioState(job.job_id, scenario.scenario.scenario_id(),
                                                     state, reason, scenario.attempt, agent_id));
  scenario.reason = reason;
  table_.Move(job, scenario, state, agent_id);
  if (state != v1::SCENARIO_STATE_ASSIGNED) assigned_at_.erase(AssignmentKey(job, scenario));
  if (state != v1::SCENARIO_STATE_RUNNING) last_event_at_.erase(AssignmentKey(job, scenario));
  if (IsScenarioEnded(state)) FinishJobIfDone(job);
  return absl::OkStatus();
}

void JobStateMachine::Lose(JobRecord& job, ScenarioRecord& scenario, const std::string& why) {
  const bool retry = scenario.attempt < max_scenario_attempts_;
  const std::string reason =
      retry ? absl::StrCat(why, "; requeued (attempt ", scenario.attempt, " of ",
                           max_scenario_attempts_, ")")
            : absl::StrCat(why, "; failed after ", scenario.attempt, " attempts");
  KV_LOG(WARNING) << "scenario lost job=" << job.job_id
                  << " scenario=" << scenario.scenario.scenario_id()
                  << " agent=" << scenario.agent_id << " reason=\"" << reason << "\"";
  RecordControllerEvent(job, scenario, v1::SCENARIO_STATE_LOST, reason);
  // Requeued: no agent, phase or progress until its next attempt reports some (status showed
  // the lost attempt's agent and progress before).
  if (retry) table_.ClearProgress(job.job_id, scenario.scenario.scenario_id());
  absl::Status stored =
      SetScenarioOn(job, scenario, retry ? v1::SCENARIO_STATE_PENDING : v1::SCENARIO_STATE_FAILED,
                    reason, retry ? "" : scenario.agent_id);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot record a lost scenario job=" << job.job_id << " error=" << stored;
  }
  hooks_.request_schedule();
}

void JobStateMachine::FailUnplaceable(JobRecord& job, ScenarioRecord& scenario,
                                      const std::string& why) {
  const std::string reason = absl::StrCat("no agent can run it: ", why);
  KV_LOG(WARNING) << "scenario unplaceable job=" << job.job_id
                  << " scenario=" << scenario.scenario.scenario_id() << " reason=\"" << reason
                  << "\"";
  RecordControllerEvent(job, scenario, v1::SCENARIO_STATE_FAILED, reason);
  if (absl::Status stored = SetScenario(job, scenario, v1::SCENARIO_STATE_FAILED, reason);
      !stored.ok()) {
    KV_LOG(ERROR) << "cannot record an unplaceable scenario job=" << job.job_id
                  << " error=" << stored;
  }
}

void JobStateMachine::StopOnItsAgent(const JobRecord& job, const ScenarioRecord& scenario,
                                     const std::string& reason) {
  // The agent stays busy until it reports the attempt torn down (or goes silent).
  if (!IsActiveScenarioState(scenario.state)) return;
  v1::ScenarioAttempt attempt;
  attempt.set_job_id(job.job_id);
  attempt.set_scenario_id(scenario.scenario.scenario_id());
  attempt.set_attempt(scenario.attempt);
  hooks_.stop_on_agent(scenario.agent_id, attempt, reason);
}

void JobStateMachine::ApplyAgentEvent(const v1::Event& event) {
  JobRecord* job = table_.Find(event.job_id());
  ScenarioRecord* scenario =
      job == nullptr ? nullptr : JobTable::FindScenario(*job, event.scenario_id());
  if (scenario == nullptr) return;
  // Fenced by attempt: a requeued scenario's earlier attempt may still be running on an agent
  // that was silent past the timeout and came back (the same agent, often). Its events stay in
  // the log, with their attempt, but neither its end nor its result moves the retry.
  if (event.attempt() != scenario->attempt) {
    ++stale_events_;
    KV_LOG_EVERY_N_SEC(WARNING, 10)
        << "event of a superseded attempt ignored job=" << event.job_id()
        << " scenario=" << event.scenario_id() << " agent=" << event.agent_id()
        << " attempt=" << event.attempt() << " current=" << scenario->attempt
        << " seq=" << event.seq() << " stale_events=" << stale_events_;
    return;
  }
  // Only the agent the attempt is assigned to moves it, while it is active.
  if (scenario->agent_id != event.agent_id() || !IsActiveScenarioState(scenario->state)) return;
  last_event_at_[AssignmentKey(*job, *scenario)] = clock_->Monotonic();
  switch (event.payload_case()) {
    case v1::Event::kProgress:
      table_.SetProgress(job->job_id, event.scenario_id(), event.progress());
      return;
    case v1::Event::kResult: {
      absl::Status stored =
          store_->Jobs().PutResult(job->job_id, event.scenario_id(), event.result());
      if (!stored.ok()) {
        KV_LOG(ERROR) << "cannot store a result job=" << job->job_id
                      << " scenario=" << event.scenario_id() << " error=" << stored;
      }
      return;
    }
    case v1::Event::kStateChange:
      ApplyStateChange(*job, *scenario, event.state_change());
      return;
    default:
      return;
  }
}

void JobStateMachine::ApplyStateChange(JobRecord& job, ScenarioRecord& scenario,
                                       const v1::StateChange& change) {
  if (change.state() != v1::SCENARIO_STATE_RUNNING && !IsScenarioEnded(change.state())) {
    return;
  }
  // Copied first: a scenario's end may add a capacity search's next probes to the job, which
  // moves its scenarios (`scenario` would dangle).
  const std::string agent_id = scenario.agent_id;
  const std::string scenario_id = scenario.scenario.scenario_id();
  absl::Status stored = SetScenario(job, scenario, change.state(), change.reason());
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot record a scenario state job=" << job.job_id << " error=" << stored;
    return;
  }
  if (change.state() != v1::SCENARIO_STATE_RUNNING) hooks_.released(agent_id, scenario_id);
}

bool JobStateMachine::ContinueCapacitySearch(JobRecord& job) {
  if (!spec::HasCapacitySearch(job.spec)) return false;
  // A round ends when every probe of it succeeded; a failed or cancelled one ends the search
  // (and the job, by the outcome rule).
  for (const ScenarioRecord& scenario : job.scenarios) {
    if (scenario.state != v1::SCENARIO_STATE_SUCCEEDED) return false;
  }
  const search::CapacityEvaluation evaluation =
      EvaluateJobCapacity(job, StoredRuns(job, store_), store_);
  if (evaluation.next.empty()) {
    KV_LOG(INFO) << "capacity search done job=" << job.job_id << " \""
                 << evaluation.report.headline() << "\"";
    return false;
  }
  const std::vector<v1::Scenario> probes = spec::ExpandProbes(
      job.spec, job.job_id, static_cast<int>(job.scenarios.size()), evaluation.next);
  if (absl::Status stored = store_->Jobs().AddScenarios(job.job_id, probes); !stored.ok()) {
    KV_LOG(ERROR) << "cannot add the capacity search's next probes job=" << job.job_id
                  << " error=" << stored;
    return false;
  }
  std::vector<std::string> ids;
  for (const v1::Scenario& probe : probes) ids.push_back(probe.scenario_id());
  table_.AppendScenarios(job, probes);
  KV_LOG(INFO) << "capacity search goes on job=" << job.job_id
               << " probes=" << absl::StrJoin(ids, ",");
  hooks_.notify(job.job_id);
  hooks_.request_schedule();
  return true;
}

void JobStateMachine::FinishJobIfDone(JobRecord& job) {
  if (IsJobEnded(job.state)) return;
  if (ContinueCapacitySearch(job)) return;
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
  absl::Status stored = store_->Jobs().UpdateJob(job.job_id, update);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot record the end of a job job=" << job.job_id << " error=" << stored;
    return;
  }
  job.state = update.state;
  job.end_time = update.end_time;
  job.error = update.error;
  KV_LOG(INFO) << "job ended job=" << job.job_id << " state=" << v1::JobState_Name(job.state);
  hooks_.notify(job.job_id);
}

void JobStateMachine::RecordControllerEvent(const JobRecord& job, const ScenarioRecord& scenario,
                                            v1::ScenarioState state, const std::string& reason) {
  v1::Event event;
  event.set_job_id(job.job_id);
  event.set_scenario_id(scenario.scenario.scenario_id());
  event.set_attempt(scenario.attempt);
  event.mutable_state_change()->set_state(state);
  event.mutable_state_change()->set_reason(reason);
  RecordJobEvent(std::move(event));
}

bool JobStateMachine::RecordJobEvent(v1::Event event) {
  event.set_seq(++controller_seq_);
  event.set_agent_id(kControllerEventSource);
  event.set_unix_ms(absl::ToUnixMillis(clock_->Now()));
  absl::StatusOr<bool> stored = store_->Events().AppendEvent(event);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot store a controller event job=" << event.job_id()
                  << " error=" << stored.status();
    return false;
  }
  hooks_.notify(event.job_id());
  return true;
}

}  // namespace kvbench::controller
