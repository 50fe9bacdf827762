#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/grpc/agent_link_limits.h"
#include "common/time/clock.h"
#include "controller/core/agent_channel.h"
#include "controller/core/agent_registry.h"
#include "controller/core/job_state_machine.h"
#include "controller/store/store.h"
#include "kvbench/v1/agent_link.pb.h"

namespace kvbench::controller {

struct AgentTimeouts {
  absl::Duration heartbeat_interval;  // told to agents in Registered
  absl::Duration heartbeat_timeout;   // silent longer: lost
};

// The agents' side of the JobManager: registrations reconciled with what the controller assigned
// (the attempts the agent holds against the active scenarios on it, from the JobTable's index,
// never a walk over every job), heartbeats, stale streams, and agents silent past the timeout
// (their scenario is lost: requeued or failed by the JobStateMachine). On the loop thread.
class AgentReconciler {
 public:
  // `store`, `clock` and `jobs` are borrowed and must outlive this.
  AgentReconciler(Store* store, Clock* clock, JobStateMachine* jobs, AgentTimeouts timeouts,
                  std::function<void()> request_schedule);

  // After the jobs are recovered: the agents the store knows, and those holding an active
  // scenario (each waits one heartbeat timeout to come back).
  absl::Status Recover();

  // Answers Registered on the channel, then cancels for what the agent holds and should not;
  // an active scenario the agent no longer holds is lost. INVALID_ARGUMENT without an agent id.
  // The caller commits queued events first (acked_seq counts them).
  absl::Status OnRegister(AgentChannel* channel, const v1::Register& message);
  void OnHeartbeat(AgentChannel* channel, const v1::Heartbeat& message);
  void OnDisconnect(AgentChannel* channel);
  // FAILED_PRECONDITION for a stale stream, INVALID_ARGUMENT for an event naming another agent or
  // out of sequence (the transport ends the stream with it; nothing is stored or acknowledged);
  // else the agent's last contact is now. Seqs on a stream: positive, at most kMaxAgentEventSeq,
  // and each the previous one's + 1. The stream's first may skip past the acked_seq of its
  // Registered: an agent's spool drops what was acknowledged, refused events included (never
  // stored: EventIngest::QueueRefused), and a store restored from a backup forgot some; but never
  // back to or below it (a well-behaved agent replays only what follows). A well-behaved agent
  // never sees the error; a confused or rogue one gets its stream ended, naming the problem, and
  // its seqs stay where they were (refused_bad_seq counts these).
  absl::Status AcceptEvent(AgentChannel* channel, const v1::Event& event);
  // Ends silent agents' streams and loses their scenarios.
  void CheckAgents();

  // The agent reported `scenario_id` ended: it is free (a round may place work on it).
  void Release(const std::string& agent_id, const std::string& scenario_id);
  // Sends a cancel of `attempt` to the agent if it is connected.
  void StopOnAgent(const std::string& agent_id, const v1::ScenarioAttempt& attempt,
                   const std::string& reason);
  // Ends every live stream with `status` (shutdown).
  void CloseAll(const absl::Status& status);

  AgentRegistry& registry() { return agents_; }
  const AgentRegistry& registry() const { return agents_; }
  int64_t heartbeats() const { return heartbeats_; }
  // Events refused by AcceptEvent for their seq, since start.
  int64_t bad_seqs() const { return bad_seqs_; }

 private:
  void Reconcile(AgentChannel* channel, AgentEntry& agent, const v1::Register& message);
  void Hold(AgentEntry& agent, const std::string& job_id, const std::string& scenario_id);

  Store* const store_;
  Clock* const clock_;
  JobStateMachine* const jobs_;
  const AgentTimeouts timeouts_;
  const std::function<void()> request_schedule_;
  AgentRegistry agents_;
  int64_t heartbeats_ = 0;
  int64_t bad_seqs_ = 0;
};

}  // namespace kvbench::controller
