#include "controller/core/agent_reconciler.h"

#include <set>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/config/config_checks.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"
#include "controller/placement/agent_preflight.h"

namespace kvbench::controller {

namespace {

// "nvme.block_device,binary.vllm-nvidia", or "none".
std::string PreflightFailures(const v1::AgentCapabilities& capabilities) {
  std::vector<std::string> failing;
  for (const v1::PreflightCheck& check : capabilities.preflight()) {
    if (check.status() == v1::PREFLIGHT_FAIL) failing.push_back(check.name());
  }
  return failing.empty() ? "none" : absl::StrJoin(failing, ",");
}

}  // namespace

AgentReconciler::AgentReconciler(Store* store, Clock* clock, JobStateMachine* jobs,
                                 AgentTimeouts timeouts, std::function<void()> request_schedule)
    : store_(store),
      clock_(clock),
      jobs_(jobs),
      timeouts_(timeouts),
      request_schedule_(std::move(request_schedule)) {}

void AgentReconciler::Hold(AgentEntry& agent, const std::string& job_id,
                           const std::string& scenario_id) {
  agent.running_job_id = job_id;
  agent.running_scenario_id = scenario_id;
}

absl::Status AgentReconciler::Recover() {
  KV_ASSIGN_OR_RETURN(std::vector<AgentRecord> agents, store_->Agents().ListAgents());
  const absl::Duration now = clock_->Monotonic();
  for (const AgentRecord& agent : agents) agents_.Remember(agent.capabilities, now);
  for (const auto& [agent_id, ref] : jobs_->table().AllActive()) {
    // It waits one heartbeat timeout for its agent to come back (CheckAgents).
    v1::AgentCapabilities unknown;
    unknown.set_agent_id(agent_id);
    agents_.Remember(unknown, now);
    Hold(*agents_.Find(agent_id), ref.first, jobs_->table().Resolve(ref)->scenario.scenario_id());
  }
  return absl::OkStatus();
}

absl::Status AgentReconciler::OnRegister(AgentChannel* channel, const v1::Register& message) {
  const std::string& agent_id = message.capabilities().agent_id();
  if (agent_id.empty()) {
    return absl::InvalidArgumentError("Register without capabilities.agent_id");
  }
  if (std::string problem = AgentIdProblem(agent_id); !problem.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("Register: agent_id ", problem));
  }
  if (agent_id == kControllerEventSource) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Register: agent_id \"", agent_id, "\" is reserved for the controller's own events"));
  }
  const absl::Time now = clock_->Now();
  KV_RETURN_IF_ERROR(store_->Agents().UpsertAgent(message.capabilities(), now));
  KV_ASSIGN_OR_RETURN(int64_t acked, store_->Events().MaxEventSeq(agent_id));
  AgentChannel* replaced =
      agents_.Attach(channel, message.capabilities(), clock_->Monotonic(), now);
  if (replaced != nullptr) {
    replaced->Close(absl::AbortedError("replaced by a newer stream of the same agent"));
  }
  AgentEntry& entry = *agents_.Find(agent_id);
  entry.stream_seq = acked;
  entry.stream_has_event = false;
  KV_LOG(INFO) << "agent registered agent=" << agent_id
               << " gpus=" << message.capabilities().gpus_size()
               << " preflight_fail=" << PreflightFailures(message.capabilities())
               << " running=" << message.running_size() << " acked_seq=" << acked;
  v1::ControllerMessage registered;
  registered.mutable_registered()->set_heartbeat_interval_s(
      absl::ToDoubleSeconds(timeouts_.heartbeat_interval));
  registered.mutable_registered()->set_acked_seq(acked);
  channel->Send(std::move(registered));
  Reconcile(channel, *agents_.Find(agent_id), message);
  request_schedule_();
  return absl::OkStatus();
}

void AgentReconciler::Reconcile(AgentChannel* channel, AgentEntry& agent,
                                const v1::Register& message) {
  const std::string& agent_id = agent.capabilities.agent_id();
  using Key = std::tuple<std::string, std::string, int>;  // job, scenario, attempt
  std::set<Key> held;
  for (const v1::ScenarioAttempt& attempt : message.running()) {
    held.emplace(attempt.job_id(), attempt.scenario_id(), attempt.attempt());
  }
  std::set<Key> ours;
  // Only the scenarios active on this agent (the table's index), not every job.
  for (const ScenarioRef& ref : jobs_->table().ActiveOn(agent_id)) {
    JobRecord& job = *jobs_->table().Find(ref.first);
    ScenarioRecord& scenario = job.scenarios[ref.second];
    const std::string& scenario_id = scenario.scenario.scenario_id();
    const Key key(job.job_id, scenario_id, scenario.attempt);
    if (held.count(key) > 0) {
      ours.insert(key);
      Hold(agent, job.job_id, scenario_id);
      continue;
    }
    if (agent.running_scenario_id == scenario_id) Hold(agent, "", "");
    jobs_->Lose(job, scenario,
                absl::StrCat("agent ", agent_id, " came back without attempt ", scenario.attempt,
                             " (restarted, or the assignment never reached it)"));
  }
  for (const Key& key : held) {
    if (ours.count(key) > 0) continue;
    // Finished with events still to replay, or cancelled, requeued or reassigned meanwhile: the
    // agent stops that attempt if it still runs it (a no-op otherwise).
    v1::ControllerMessage cancel;
    cancel.mutable_cancel()->set_job_id(std::get<0>(key));
    cancel.mutable_cancel()->set_scenario_id(std::get<1>(key));
    cancel.mutable_cancel()->set_attempt(std::get<2>(key));
    cancel.mutable_cancel()->set_reason("not assigned to this agent any more");
    channel->Send(std::move(cancel));
  }
}

void AgentReconciler::OnHeartbeat(AgentChannel* channel, const v1::Heartbeat& message) {
  AgentEntry* agent = agents_.FindByChannel(channel);
  if (agent == nullptr) return;  // a stale stream
  ++heartbeats_;
  agent->last_contact = clock_->Monotonic();
  agent->last_heartbeat = clock_->Now();
  // Placement checks NVMe space against what is free now, not at registration; more
  // space may place a waiting NVME scenario.
  if (message.has_nvme_free_bytes()) {
    const bool grew = message.nvme_free_bytes() > agent->capabilities.nvme_free_bytes();
    agent->capabilities.set_nvme_free_bytes(message.nvme_free_bytes());
    if (grew) request_schedule_();
  }
  // The preflight's re-run while idle: a check that FAILs now keeps its tiers off the
  // agent, one that passes again lets a waiting scenario be placed.
  if (ApplyHeartbeatPreflight(message.preflight(), &agent->capabilities)) {
    KV_LOG(INFO) << "agent preflight changed agent=" << agent->capabilities.agent_id()
                 << " failing=" << PreflightFailures(agent->capabilities);
    request_schedule_();
  }
  // An agent idle by its own word whose scenario we already consider ended (cancelled) is free.
  if (!message.running_scenario_id().empty() || agent->running_scenario_id.empty()) return;
  JobRecord* job = jobs_->table().Find(agent->running_job_id);
  ScenarioRecord* scenario =
      job == nullptr ? nullptr : JobTable::FindScenario(*job, agent->running_scenario_id);
  if (scenario == nullptr || !IsActiveScenarioState(scenario->state) ||
      scenario->agent_id != agent->capabilities.agent_id()) {
    Hold(*agent, "", "");
    request_schedule_();
  }
}

absl::Status AgentReconciler::AcceptEvent(AgentChannel* channel, const v1::Event& event) {
  AgentEntry* agent = agents_.FindByChannel(channel);
  if (agent == nullptr) return absl::FailedPreconditionError("event on a stale stream");
  if (event.agent_id() != agent->capabilities.agent_id()) {
    return absl::InvalidArgumentError(absl::StrCat("event seq ", event.seq(), " names agent \"",
                                                   event.agent_id(), "\" on the stream of ",
                                                   agent->capabilities.agent_id()));
  }
  const int64_t seq = event.seq();
  std::string problem;
  if (seq <= 0 || seq > kMaxAgentEventSeq) {
    problem = absl::StrCat("event seq ", seq, " is out of range (1 to ", kMaxAgentEventSeq, ")");
  } else if (agent->stream_has_event && seq != agent->stream_seq + 1) {
    problem = absl::StrCat("event seq ", seq, " follows seq ", agent->stream_seq,
                           " on this stream: seqs must be contiguous (expected ",
                           agent->stream_seq + 1, ")");
  } else if (!agent->stream_has_event && seq <= agent->stream_seq) {
    problem = absl::StrCat("event seq ", seq, " is at or below the acked_seq ", agent->stream_seq,
                           " this stream was registered with: replay only what follows");
  }
  if (!problem.empty()) {
    ++bad_seqs_;
    KV_LOG_EVERY_N_SEC(WARNING, 10)
        << "refused an agent's event for its seq; ending its stream agent="
        << agent->capabilities.agent_id() << " problem=\"" << problem
        << "\" refused_bad_seq=" << bad_seqs_;
    return absl::InvalidArgumentError(problem);
  }
  agent->stream_seq = seq;
  agent->stream_has_event = true;
  agent->last_contact = clock_->Monotonic();
  return absl::OkStatus();
}

void AgentReconciler::OnDisconnect(AgentChannel* channel) {
  const std::string agent_id = agents_.Detach(channel);
  if (!agent_id.empty()) KV_LOG(WARNING) << "agent disconnected agent=" << agent_id;
}

void AgentReconciler::CheckAgents() {
  const absl::Duration now = clock_->Monotonic();
  for (const std::string& agent_id : agents_.Silent(now, timeouts_.heartbeat_timeout)) {
    AgentEntry* agent = agents_.Find(agent_id);
    if (agent->channel != nullptr) {
      KV_LOG(WARNING) << "agent missed heartbeats agent=" << agent_id;
      AgentChannel* channel = agent->channel;
      agents_.Detach(channel);
      channel->Close(absl::UnavailableError("heartbeats missed past the timeout"));
    }
    if (agent->running_scenario_id.empty()) continue;
    JobRecord* job = jobs_->table().Find(agent->running_job_id);
    ScenarioRecord* scenario =
        job == nullptr ? nullptr : JobTable::FindScenario(*job, agent->running_scenario_id);
    Hold(*agent, "", "");
    if (scenario != nullptr && IsActiveScenarioState(scenario->state) &&
        scenario->agent_id == agent_id) {
      jobs_->Lose(*job, *scenario,
                  absl::StrCat("agent ", agent_id, " silent for over ",
                               absl::FormatDuration(timeouts_.heartbeat_timeout)));
    }
  }
}

void AgentReconciler::Release(const std::string& agent_id, const std::string& scenario_id) {
  AgentEntry* agent = agents_.Find(agent_id);
  if (agent == nullptr || agent->running_scenario_id != scenario_id) return;
  Hold(*agent, "", "");
  request_schedule_();
}

void AgentReconciler::StopOnAgent(const std::string& agent_id, const v1::ScenarioAttempt& attempt,
                                  const std::string& reason) {
  AgentEntry* agent = agents_.Find(agent_id);
  if (agent == nullptr || agent->channel == nullptr) return;
  v1::ControllerMessage message;
  message.mutable_cancel()->set_job_id(attempt.job_id());
  message.mutable_cancel()->set_scenario_id(attempt.scenario_id());
  message.mutable_cancel()->set_attempt(attempt.attempt());
  message.mutable_cancel()->set_reason(reason);
  agent->channel->Send(std::move(message));
}

void AgentReconciler::CloseAll(const absl::Status& status) {
  for (AgentChannel* channel : agents_.Channels()) channel->Close(status);
}

}  // namespace kvbench::controller
