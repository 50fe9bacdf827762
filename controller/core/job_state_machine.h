#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "common/time/clock.h"
#include "controller/core/event_admission.h"
#include "controller/core/job_table.h"
#include "controller/store/store.h"
#include "kvbench/v1/agent_link.pb.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::controller {

// The agent id the controller's own events (lost, requeued, cancelled) are stored under.
inline constexpr char kControllerEventSource[] = "controller";

// A job's id: "<name>-<UTC time of submission, %Y%m%dT%H%M%S>-<4 hex digits of `random`>".
std::string FormatJobId(const std::string& name, absl::Time submitted, uint64_t random);

// What the state machine tells the rest of the JobManager. Every hook is set.
struct JobStateHooks {
  // The job has a new stored event or ended (its watchers wake).
  std::function<void(const std::string& job_id)> notify;
  // A scenario went back to PENDING (a scheduling round should run).
  std::function<void()> request_schedule;
  // The agent reported the scenario ended: the agent is free of it.
  std::function<void(const std::string& agent_id, const std::string& scenario_id)> released;
  // A cancelled scenario an agent holds: tell the agent to stop that attempt of it.
  std::function<void(const std::string& agent_id, const v1::ScenarioAttempt& attempt,
                     const std::string& reason)>
      stop_on_agent;
  // Every agent the controller knows (connected or not): FAN_OUT_EACH runs on those matching.
  std::function<std::vector<v1::AgentCapabilities>()> known_agents;
};

// Jobs and their scenarios' states (DESIGN.md "The flow of one job"): submit, assignment, agent
// events, lost scenarios requeued up to the attempt limit, cancels, and the job's own end by the
// one outcome rule (job_outcome.h). Durable first: each transition is in the Store before memory
// (the JobTable) changes; Recover rebuilds memory from the store. Knows no agents or channels:
// it speaks through JobStateHooks. On the loop thread; no locking.
class JobStateMachine {
 public:
  // `store` and `clock` are borrowed and must outlive this.
  // `only_job_id`: the id of the one job this controller will ever hold (kvctl run names its job
  // before submitting it, since its files live in a folder named after it); a second job is
  // refused. Empty: each job gets a fresh FormatJobId.
  JobStateMachine(Store* store, Clock* clock, int max_scenario_attempts, std::string only_job_id,
                  JobStateHooks hooks);

  // Loads every job from the store and the controller's last event seq.
  absl::Status Recover();

  // FAN_OUT_EACH expands the matrix once per known agent with the placement's labels
  // (FAILED_PRECONDITION naming the known agents and their labels when none has them).
  absl::StatusOr<v1::SubmitJobResponse> Submit(const v1::SubmitJobRequest& request);
  absl::StatusOr<v1::Job> Cancel(const v1::CancelJobRequest& request);
  // Records the scenario ASSIGNED to `agent_id` (next attempt) and its job RUNNING, hands the
  // Assignment to `send`, then stores the controller's "assigned" event; false if the store
  // refused (the scenario stays PENDING and nothing is sent).
  bool Assign(JobRecord& job, ScenarioRecord& scenario, const std::string& agent_id,
              const std::function<void(v1::Assignment)>& send);
  // The scenario's agent is gone: requeued while attempts remain, else FAILED.
  void Lose(JobRecord& job, ScenarioRecord& scenario, const std::string& why);
  // A PENDING scenario no agent of a closed fleet can run: FAILED with `why` (the scheduler's
  // reason), stored with the controller's event.
  void FailUnplaceable(JobRecord& job, ScenarioRecord& scenario, const std::string& why);
  // Jobs running past their spec's max_duration_s: every unfinished scenario FAILS with that
  // reason (an active one is stopped on its agent). Reads only the pending and active indexes.
  void FailOverdueJobs();
  // A stored agent event: moves its scenario if it is about the scenario's current attempt and
  // comes from the agent that attempt is assigned to. An event of another attempt (a superseded
  // one, whose agent went silent and came back) changes nothing and is counted (stale_events).
  void ApplyAgentEvent(const v1::Event& event);
  // Agent events about an attempt that was not the scenario's current one, since start.
  int64_t stale_events() const { return stale_events_; }
  // Whether an agent's event may be stored at all (EventAdmission), before it is queued.
  EventAdmission::Verdict AdmitAgentEvent(const v1::Event& event) const {
    return admission_.Check(table_, event);
  }
  // Scenarios ASSIGNED for longer than `timeout` without a word from their agent about the
  // attempt (its RUNNING moves it on): the agent is told to stop the attempt and the scenario is
  // lost with that reason (requeued while attempts remain). An agent that heartbeats but never
  // starts what it was given (a wedged link, a rogue) holds nothing for ever. Returns how many.
  int TimeOutAssignments(absl::Duration timeout);
  // Scenarios RUNNING with no event applied from their attempt's agent for longer than `timeout`
  // (a running scenario sends one at least every kScenarioKeepalivePeriod): the agent is told to
  // stop the attempt and the scenario is lost with that reason. An agent that heartbeats while
  // its events no longer arrive (a spool stuck behind one it cannot send, a wedged driver) holds
  // the scenario for ever otherwise. Returns how many.
  int TimeOutSilentAttempts(absl::Duration timeout);
  // Stores `event` (its job_id, scenario_id and payload set) as the controller's own, numbered
  // after the controller's last, and wakes the job's watchers. False when it could not be stored
  // (logged).
  bool RecordJobEvent(v1::Event event);

  JobTable& table() { return table_; }
  const JobTable& table() const { return table_; }

 private:
  absl::Status SetScenario(JobRecord& job, ScenarioRecord& scenario, v1::ScenarioState state,
                           const std::string& reason);
  // The same, moving it to `agent_id` ("" for none).
  absl::Status SetScenarioOn(JobRecord& job, ScenarioRecord& scenario, v1::ScenarioState state,
                             const std::string& reason, std::string agent_id);
  void ApplyStateChange(JobRecord& job, ScenarioRecord& scenario, const v1::StateChange& change);
  void FinishJobIfDone(JobRecord& job);
  // A capacity search whose round of probes all succeeded: its next probes are stored and
  // queued (true), or it is over (false). Moves `job.scenarios`.
  bool ContinueCapacitySearch(JobRecord& job);
  // Loses every scenario in `state` whose time in `since` (set to now for one not there yet)
  // is over `timeout`, its agent told to stop it, with reason_of(agent, attempt, how long).
  int TimeOut(v1::ScenarioState state, absl::flat_hash_map<std::string, absl::Duration>* since,
              absl::Duration timeout,
              const std::function<std::string(const std::string&, int, absl::Duration)>& reason_of);
  // An active scenario's current attempt: its agent is told to stop it (a no-op otherwise).
  void StopOnItsAgent(const JobRecord& job, const ScenarioRecord& scenario,
                      const std::string& reason);
  void RecordControllerEvent(const JobRecord& job, const ScenarioRecord& scenario,
                             v1::ScenarioState state, const std::string& reason);
  // The job an earlier submit with `request_id` made (an empty response if none); ALREADY_EXISTS
  // when that job's spec is not `spec` (normalized).
  absl::StatusOr<v1::SubmitJobResponse> Resubmitted(const std::string& request_id,
                                                    const v1::JobSpec& spec);
  absl::StatusOr<std::string> NewJobId(const std::string& name);
  // The known agents a FAN_OUT_EACH spec runs on, by id.
  absl::StatusOr<std::vector<std::string>> AgentsSelected(const v1::JobSpec& spec) const;

  Store* const store_;
  Clock* const clock_;
  const int max_scenario_attempts_;
  const std::string only_job_id_;
  const JobStateHooks hooks_;
  JobTable table_;
  int64_t controller_seq_ = 0;
  int64_t stale_events_ = 0;
  EventAdmission admission_;
  // assigned_at_'s key of a scenario: "job\nscenario".
  static std::string AssignmentKey(const JobRecord& job, const ScenarioRecord& scenario);
  // When each ASSIGNED scenario was assigned (monotonic); a recovered one is timed from the first
  // check after the restart.
  absl::flat_hash_map<std::string, absl::Duration> assigned_at_;
  // When the last event of each RUNNING scenario's current attempt was applied (monotonic); a
  // recovered one is timed from the first check after the restart. Same keys.
  absl::flat_hash_map<std::string, absl::Duration> last_event_at_;
  std::mt19937_64 random_;
};

}  // namespace kvbench::controller
