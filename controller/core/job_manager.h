#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "controller/core/agent_channel.h"
#include "controller/core/agent_reconciler.h"
#include "controller/core/event_ingest.h"
#include "controller/core/job_state_machine.h"
#include "controller/core/scenario_dispatcher.h"
#include "controller/core/watcher_set.h"
#include "controller/store/store.h"
#include "kvbench/v1/agent_link.pb.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::controller {

// Defaults of JobManagerOptions, documented where the config fields are (config.proto).
inline constexpr absl::Duration kDefaultHeartbeatInterval = absl::Seconds(5);
inline constexpr absl::Duration kDefaultAssignmentTimeout = absl::Seconds(120);
inline constexpr absl::Duration kDefaultEventSilenceTimeout = absl::Seconds(600);

struct JobManagerOptions {
  absl::Duration heartbeat_interval = kDefaultHeartbeatInterval;
  absl::Duration heartbeat_timeout = absl::Seconds(30);
  int max_scenario_attempts = 3;
  // An ASSIGNED scenario whose agent has not started it (its RUNNING) by then is lost
  // (JobStateMachine::TimeOutAssignments).
  absl::Duration assignment_timeout = kDefaultAssignmentTimeout;
  // A RUNNING scenario with no event from its agent about the attempt for longer is lost
  // (JobStateMachine::TimeOutSilentAttempts).
  absl::Duration event_silence_timeout = kDefaultEventSilenceTimeout;
  // A closed fleet: the agents connected now are all there will ever be (kvctl run's one
  // embedded agent). A scenario none of them can run then fails with the scheduler's reason when
  // its turn comes (ScenarioDispatcher) instead of waiting for an agent to join.
  bool fail_unplaceable = false;
  // The id of the one job this manager will hold (JobStateMachine's only_job_id); "" = any.
  std::string only_job_id;
};

// The control plane's logic (DESIGN.md "The flow of one job", steps 1-2 and 4), composed of one
// part per responsibility, each testable alone:
// - JobStateMachine (with its JobTable): jobs and scenarios, durable-first transitions, the job's
//   outcome, requeues of lost scenarios, cancels, recovery from the store;
// - EventIngest: agents' events stored by group commit, acknowledged per stream, then applied;
// - WatcherSet: WatchJob wake-ups;
// - AgentReconciler (with its AgentRegistry): registrations, heartbeats, lost agents;
// - ScenarioDispatcher: a scheduling round over the pending scenarios only.
// This class wires them and owns the coalesced scheduling request and the agent check timer.
// Everything runs on the executor's thread: the gRPC services post to it and hand answers back
// (STYLE.md rule 14), so nothing here locks or sees gRPC.
//
// Durable first: a job, a scenario's state, an event and a result are in the Store before the
// caller is answered or the agent acknowledged; memory mirrors the store and is rebuilt from it at
// Create (a controller restarted from its SQLite file keeps every job and result, and scenarios
// that were running wait for their agents to come back for one heartbeat timeout).
class JobManager {
 public:
  // `store`, `clock` and `executor` are borrowed and must outlive the manager.
  static absl::StatusOr<std::unique_ptr<JobManager>> Create(Store* store, Clock* clock,
                                                            Executor* executor,
                                                            JobManagerOptions options);
  ~JobManager();

  // Before the server stops: commits queued events, ends every agent stream (the agents
  // reconnect and replay to the next controller) and every watcher (UNAVAILABLE), and stops the
  // agent checks. Idempotent.
  void Shutdown();

  // --- Controller service (kvctl, schedulers) ---
  absl::StatusOr<v1::SubmitJobResponse> SubmitJob(const v1::SubmitJobRequest& request);
  absl::StatusOr<v1::Job> GetJob(const std::string& job_id) const;
  absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& request) const;
  absl::StatusOr<v1::Job> CancelJob(const v1::CancelJobRequest& request);
  v1::ListAgentsResponse ListAgents() const;
  // A page of the job's request records (request_views.h).
  absl::StatusOr<v1::ListRequestsResponse> ListRequests(
      const v1::ListRequestsRequest& request) const;
  // Deletes request records stored before `before` (the controller's retention); how many chunks.
  absl::StatusOr<int64_t> PruneRequests(absl::Time before);
  // The job's events after `after_position` (at most kWatchBatch). NOT_FOUND for no such job.
  absl::StatusOr<WatchBatch> WatchEvents(const std::string& job_id, int64_t after_position);
  // Calls `wake` (on the loop) once the job has a new event or ends; returns an id for
  // RemoveWatcher. One-shot: a watcher re-adds itself after it has read.
  uint64_t AddWatcher(const std::string& job_id, std::function<void()> wake);
  void RemoveWatcher(uint64_t watcher_id);
  // Adds a regression found in a scheduled job to the job's event log: watchers see
  // it as the controller's event with the alert as payload.
  void RecordAlert(const v1::RegressionAlert& alert);

  // --- AgentLink: the stream protocol, for every transport (the gRPC service, kvctl run's
  // in-process bridge) ---
  // One message of an agent's stream, in order. The first must be Register and only the first
  // is (INVALID_ARGUMENT otherwise): Register is answered with Registered on the channel, then
  // whatever the agent should run or stop (INVALID_ARGUMENT without an agent id). An event is
  // queued for the next group commit (posted to run after what the loop already holds): then it
  // is stored once, acknowledged on its channel and applied to its scenario; a failed commit ends
  // the streams of the batch (the agents replay the events later). A status that is not OK means
  // the transport ends the stream with it.
  absl::Status OnAgentMessage(AgentChannel* channel, const v1::AgentMessage& message);
  // The stream ended. The agent's scenario is kept for one heartbeat timeout.
  void OnDisconnect(AgentChannel* channel);

  // Counters for our own /metrics and the scale benchmark.
  struct Stats {
    int64_t heartbeats = 0;
    int64_t events_stored = 0;
    int64_t events_duplicate = 0;
    // Stored but not applied: about an attempt that is not the scenario's current one.
    int64_t events_stale = 0;
    int64_t event_commits = 0;
    // Agents' events refused at ingest (acknowledged, never stored), by reason: no such job or
    // scenario, from an agent the attempt is not assigned to, a controller-only payload; and
    // events out of sequence (their stream ended instead, unacknowledged).
    int64_t refused_unknown_job = 0;
    int64_t refused_not_owner = 0;
    int64_t refused_controller_only = 0;
    int64_t refused_bad_seq = 0;
    // Assignments lost for not being started within assignment_timeout.
    int64_t assignments_timed_out = 0;
    // Running attempts lost for no event within event_silence_timeout.
    int64_t attempts_silent = 0;
    int64_t scheduling_rounds = 0;
    absl::Duration last_scheduling_duration;
    // The scenarios the last round looked at: the pending ones, never finished jobs.
    int64_t last_round_scenarios_visited = 0;
    size_t agents_connected = 0;
  };
  const Stats& stats() const;

 private:
  JobManager(Store* store, Clock* clock, Executor* executor, JobManagerOptions options);
  absl::Status Recover();
  absl::Status OnRegister(AgentChannel* channel, const v1::Register& message);
  absl::Status OnEvent(AgentChannel* channel, const v1::Event& event);
  // Scheduling: coalesced, runs on the loop after the current task.
  void RequestSchedule();
  void ScheduleNow();
  void ApplyEvent(const v1::Event& event);

  Store* const store_;
  Clock* const clock_;
  Executor* const executor_;
  const JobManagerOptions options_;
  WatcherSet watchers_;
  JobStateMachine jobs_;
  AgentReconciler agents_;
  // Streams whose first message (their Register) has come, until they disconnect.
  absl::flat_hash_set<AgentChannel*> registered_channels_;
  EventIngest ingest_;
  ScenarioDispatcher dispatcher_;
  bool schedule_posted_ = false;
  bool shutting_down_ = false;
  TaskId check_task_;
  mutable Stats stats_;
};

}  // namespace kvbench::controller
