// JobManager: the AgentLink side — registrations, heartbeats, events, disconnects.

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/log/logging.h"
#include "controller/core/job_manager.h"

namespace kvbench::controller {
namespace {

bool IsActive(v1::ScenarioState state) {
  return state == v1::SCENARIO_STATE_ASSIGNED || state == v1::SCENARIO_STATE_RUNNING;
}

}  // namespace

absl::Status JobManager::OnRegister(AgentChannel* channel, const v1::Register& message) {
  const std::string& agent_id = message.capabilities().agent_id();
  if (agent_id.empty()) {
    return absl::InvalidArgumentError("Register without capabilities.agent_id");
  }
  FlushEvents();  // acked_seq below must count what this agent sent before
  const absl::Time now = clock_->Now();
  absl::Status upserted = store_->UpsertAgent(message.capabilities(), now);
  if (!upserted.ok()) return upserted;
  absl::StatusOr<int64_t> acked = store_->MaxEventSeq(agent_id);
  if (!acked.ok()) return acked.status();
  AgentChannel* replaced =
      agents_.Attach(channel, message.capabilities(), clock_->Monotonic(), now);
  if (replaced != nullptr) {
    replaced->Close(absl::AbortedError("replaced by a newer stream of the same agent"));
  }
  AgentEntry* agent = agents_.Find(agent_id);
  KV_LOG(INFO) << "agent registered agent=" << agent_id
               << " gpus=" << message.capabilities().gpus_size()
               << " running=" << message.running_scenario_ids_size() << " acked_seq=" << *acked;

  v1::ControllerMessage registered;
  registered.mutable_registered()->set_heartbeat_interval_s(
      absl::ToDoubleSeconds(options_.heartbeat_interval));
  registered.mutable_registered()->set_acked_seq(*acked);
  channel->Send(std::move(registered));

  // Reconcile what the agent says it holds with what we assigned to it.
  const std::set<std::string> held(message.running_scenario_ids().begin(),
                                   message.running_scenario_ids().end());
  std::set<std::string> ours;
  for (auto& [job_id, job] : jobs_) {
    for (ScenarioRecord& scenario : job.scenarios) {
      if (!IsActive(scenario.state) || scenario.agent_id != agent_id) continue;
      const std::string& scenario_id = scenario.scenario.scenario_id();
      if (held.count(scenario_id) > 0) {
        ours.insert(scenario_id);
        agent->running_job_id = job_id;
        agent->running_scenario_id = scenario_id;
        continue;
      }
      if (agent->running_scenario_id == scenario_id) {
        agent->running_scenario_id.clear();
        agent->running_job_id.clear();
      }
      LoseScenario(job, scenario,
                   absl::StrCat("agent ", agent_id, " came back without it (restarted)"));
    }
  }
  for (const std::string& scenario_id : held) {
    if (ours.count(scenario_id) > 0) continue;
    // Finished with events still to replay, or cancelled/reassigned meanwhile: the agent stops
    // it if it still runs it (a no-op otherwise).
    v1::ControllerMessage cancel;
    cancel.mutable_cancel()->set_scenario_id(scenario_id);
    cancel.mutable_cancel()->set_reason("not assigned to this agent any more");
    channel->Send(std::move(cancel));
  }
  stats_.agents_connected = agents_.connected_count();
  RequestSchedule();
  return absl::OkStatus();
}

void JobManager::OnHeartbeat(AgentChannel* channel, const v1::Heartbeat& message) {
  AgentEntry* agent = agents_.FindByChannel(channel);
  if (agent == nullptr) return;  // a stale stream
  ++stats_.heartbeats;
  agent->last_contact = clock_->Monotonic();
  agent->last_heartbeat = clock_->Now();
  // An agent idle by its own word whose scenario we already consider ended (cancelled) is free.
  if (message.running_scenario_id().empty() && !agent->running_scenario_id.empty()) {
    JobRecord* job = FindJob(agent->running_job_id);
    ScenarioRecord* scenario =
        job == nullptr ? nullptr : FindScenario(*job, agent->running_scenario_id);
    if (scenario == nullptr || !IsActive(scenario->state) ||
        scenario->agent_id != agent->capabilities.agent_id()) {
      agent->running_scenario_id.clear();
      agent->running_job_id.clear();
      RequestSchedule();
    }
  }
}

absl::Status JobManager::OnEvent(AgentChannel* channel, const v1::Event& event) {
  AgentEntry* agent = agents_.FindByChannel(channel);
  if (agent == nullptr) return absl::FailedPreconditionError("event on a stale stream");
  if (event.agent_id() != agent->capabilities.agent_id()) {
    return absl::InvalidArgumentError(absl::StrCat("event seq ", event.seq(), " names agent \"",
                                                   event.agent_id(), "\" on the stream of ",
                                                   agent->capabilities.agent_id()));
  }
  agent->last_contact = clock_->Monotonic();
  pending_events_.emplace_back(channel, event);
  if (!flush_posted_) {
    flush_posted_ = true;
    executor_->Post("controller.ingest", [this] { FlushEvents(); });
  }
  return absl::OkStatus();
}

void JobManager::FlushEvents() {
  flush_posted_ = false;
  if (pending_events_.empty()) return;
  std::vector<std::pair<AgentChannel*, v1::Event>> batch;
  batch.swap(pending_events_);
  std::vector<v1::Event> events;
  events.reserve(batch.size());
  for (const auto& [channel, event] : batch) events.push_back(event);
  absl::StatusOr<std::vector<bool>> stored = store_->AppendEvents(events);
  if (!stored.ok()) {
    KV_LOG(ERROR) << "cannot store events count=" << events.size() << " error=" << stored.status();
    std::set<AgentChannel*> channels;
    for (const auto& [channel, event] : batch) channels.insert(channel);
    for (AgentChannel* channel : channels) {
      channel->Close(absl::UnavailableError("the controller could not store events; replay them"));
    }
    return;
  }
  ++stats_.event_commits;
  // One acknowledgement per stream: its events are in order, so the last seq covers them all.
  std::map<AgentChannel*, int64_t> acks;
  for (size_t i = 0; i < batch.size(); ++i) {
    const v1::Event& event = batch[i].second;
    acks[batch[i].first] = event.seq();
    if (!(*stored)[i]) {
      ++stats_.events_duplicate;
      continue;
    }
    ++stats_.events_stored;
    ApplyAgentEvent(event);
    Notify(event.job_id());
  }
  for (const auto& [channel, seq] : acks) {
    v1::ControllerMessage ack;
    ack.mutable_ack()->set_acked_seq(seq);
    channel->Send(std::move(ack));
  }
}

void JobManager::ApplyAgentEvent(const v1::Event& event) {
  JobRecord* job = FindJob(event.job_id());
  ScenarioRecord* scenario = job == nullptr ? nullptr : FindScenario(*job, event.scenario_id());
  // Only the agent the scenario is assigned to moves it (a late event of a requeued attempt is
  // kept in the log but changes nothing).
  if (scenario == nullptr || scenario->agent_id != event.agent_id() || !IsActive(scenario->state)) {
    return;
  }
  switch (event.payload_case()) {
    case v1::Event::kProgress:
      progress_[absl::StrCat(job->job_id, "/", event.scenario_id())] = event.progress();
      return;
    case v1::Event::kResult: {
      absl::Status stored = store_->PutResult(job->job_id, event.scenario_id(), event.result());
      if (!stored.ok()) {
        KV_LOG(ERROR) << "cannot store a result job=" << job->job_id
                      << " scenario=" << event.scenario_id() << " error=" << stored;
      }
      return;
    }
    case v1::Event::kStateChange: {
      const v1::StateChange& change = event.state_change();
      if (change.state() == v1::SCENARIO_STATE_RUNNING ||
          change.state() == v1::SCENARIO_STATE_SUCCEEDED ||
          change.state() == v1::SCENARIO_STATE_FAILED ||
          change.state() == v1::SCENARIO_STATE_CANCELLED) {
        absl::Status stored = SetScenario(*job, *scenario, change.state(), change.reason());
        if (!stored.ok()) {
          KV_LOG(ERROR) << "cannot record a scenario state job=" << job->job_id
                        << " error=" << stored;
          return;
        }
        if (change.state() != v1::SCENARIO_STATE_RUNNING) FreeAgentOf(*scenario);
      }
      return;
    }
    default:
      return;
  }
}

void JobManager::OnDisconnect(AgentChannel* channel) {
  const std::string agent_id = agents_.Detach(channel);
  if (agent_id.empty()) return;
  KV_LOG(WARNING) << "agent disconnected agent=" << agent_id;
  stats_.agents_connected = agents_.connected_count();
}

}  // namespace kvbench::controller
