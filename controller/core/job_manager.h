#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "controller/core/agent_channel.h"
#include "controller/core/agent_registry.h"
#include "controller/store/store.h"
#include "kvbench/v1/agent_link.pb.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::controller {

// Defaults of JobManagerOptions, documented where the config fields are (config.proto).
inline constexpr absl::Duration kDefaultHeartbeatInterval = absl::Seconds(5);
// Most events one WatchEvents call returns.
inline constexpr int kWatchBatch = 256;
// The agent id the controller's own events (lost, requeued, cancelled) are stored under.
inline constexpr char kControllerEventSource[] = "controller";

struct JobManagerOptions {
  absl::Duration heartbeat_interval = kDefaultHeartbeatInterval;
  absl::Duration heartbeat_timeout = absl::Seconds(30);
  int max_scenario_attempts = 3;
};

// A batch of a job's stored events for a watcher.
struct WatchBatch {
  std::vector<v1::WatchJobResponse> events;
  bool job_done = false;  // the job is terminal and `events` reach the end of its log
};

// The control plane's logic (DESIGN.md "The flow of one job", steps 1-2 and 4): jobs and their
// scenarios, the agents attached over AgentLink, scheduling, event ingest, lost agents and
// requeues, cancels and watchers. Everything runs on the executor's thread: the gRPC services
// post to it and hand answers back (STYLE.md rule 14), so nothing here locks or sees gRPC.
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
  // The job's events after `after_position` (at most kWatchBatch). NOT_FOUND for no such job.
  absl::StatusOr<WatchBatch> WatchEvents(const std::string& job_id, int64_t after_position);
  // Calls `wake` (on the loop) once the job has a new event or ends; returns an id for
  // RemoveWatcher. One-shot: a watcher re-adds itself after it has read.
  uint64_t AddWatcher(const std::string& job_id, std::function<void()> wake);
  void RemoveWatcher(uint64_t watcher_id);

  // --- AgentLink (one call per message of an agent's stream) ---
  // The first message of a stream. Answers with Registered on the channel, then whatever the
  // agent should run or stop. INVALID_ARGUMENT for a Register without an agent id.
  absl::Status OnRegister(AgentChannel* channel, const v1::Register& message);
  void OnHeartbeat(AgentChannel* channel, const v1::Heartbeat& message);
  // Queues the event for the next group commit (posted to run after what the loop already
  // holds): then it is stored once, acknowledged on its channel and applied to its scenario. A
  // failed commit ends the streams of the batch (the agents replay the events later).
  absl::Status OnEvent(AgentChannel* channel, const v1::Event& event);
  // The stream ended. The agent's scenario is kept for one heartbeat timeout.
  void OnDisconnect(AgentChannel* channel);

  // Counters for our own /metrics and the scale benchmark.
  struct Stats {
    int64_t heartbeats = 0;
    int64_t events_stored = 0;
    int64_t events_duplicate = 0;
    int64_t event_commits = 0;
    int64_t scheduling_rounds = 0;
    absl::Duration last_scheduling_duration;
    size_t agents_connected = 0;
  };
  const Stats& stats() const { return stats_; }

 private:
  JobManager(Store* store, Clock* clock, Executor* executor, JobManagerOptions options);
  absl::Status Recover();

  // Scheduling: coalesced, runs on the loop after the current task.
  void RequestSchedule();
  void ScheduleNow();
  void Assign(JobRecord& job, ScenarioRecord& scenario, AgentEntry& agent);
  void CheckAgents();

  // Scenario transitions (durable first, then memory), with the job's own transitions.
  absl::Status SetScenario(JobRecord& job, ScenarioRecord& scenario, v1::ScenarioState state,
                           const std::string& reason);
  void LoseScenario(JobRecord& job, ScenarioRecord& scenario, const std::string& why);
  void ApplyAgentEvent(const v1::Event& event);
  // Stores every queued event in one transaction, then acknowledges and applies them.
  void FlushEvents();
  void FinishJobIfDone(JobRecord& job);
  void FreeAgentOf(const ScenarioRecord& scenario);
  // Stores an event of the controller's own about `scenario` (what a watcher sees).
  void RecordControllerEvent(const JobRecord& job, const ScenarioRecord& scenario,
                             v1::ScenarioState state, const std::string& reason);
  void Notify(const std::string& job_id);

  JobRecord* FindJob(const std::string& job_id);
  ScenarioRecord* FindScenario(JobRecord& job, const std::string& scenario_id);
  v1::Job ToJobProto(const JobRecord& job, bool with_results) const;
  std::string NewJobId(const std::string& name);

  Store* const store_;
  Clock* const clock_;
  Executor* const executor_;
  const JobManagerOptions options_;
  std::map<std::string, JobRecord> jobs_;         // every job, by id
  std::vector<std::string> submit_order_;         // job ids, oldest first
  std::map<std::string, int64_t> submit_seq_;     // job id -> its index in submit_order_
  std::map<std::string, v1::Progress> progress_;  // "job/scenario" -> latest progress
  AgentRegistry agents_;
  std::multimap<std::string, std::pair<uint64_t, std::function<void()>>> watchers_;
  // Events received and not yet committed, with the stream each came on (kept alive by the
  // service until its disconnect, which the loop runs after the flush).
  std::vector<std::pair<AgentChannel*, v1::Event>> pending_events_;
  bool flush_posted_ = false;
  uint64_t next_watcher_id_ = 1;
  int64_t controller_seq_ = 0;
  bool schedule_posted_ = false;
  bool shutting_down_ = false;
  TaskId check_task_;
  std::mt19937_64 random_;
  Stats stats_;
};

}  // namespace kvbench::controller
