#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controller/store/store.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::controller {

// ASSIGNED or RUNNING: a scenario an agent holds.
bool IsActiveScenarioState(v1::ScenarioState state);

// A scenario by its place: its job's id and its index in JobRecord::scenarios. Ordered like the
// jobs map (job id, then the job's scenario order).
using ScenarioRef = std::pair<std::string, size_t>;

// The jobs in memory (a mirror of the store) with two indexes kept at every state change: the
// PENDING scenarios, and the active (ASSIGNED/RUNNING) ones by agent. A scheduling round and an
// agent's registration read the indexes, so they never walk finished jobs. Plain data on the
// JobManager's loop thread; no locking, no store (JobStateMachine writes the store first).
class JobTable {
 public:
  // Adds a submitted or recovered job and indexes its scenarios. Its id must be new.
  JobRecord& Add(JobRecord job);
  // Appends PENDING scenarios to a job of the table and indexes them (a capacity search's next
  // probes). References to the job's scenarios are invalidated; ScenarioRefs stay valid.
  void AppendScenarios(JobRecord& job, const std::vector<v1::Scenario>& scenarios);
  JobRecord* Find(const std::string& job_id);
  const JobRecord* Find(const std::string& job_id) const;
  static ScenarioRecord* FindScenario(JobRecord& job, const std::string& scenario_id);
  static const ScenarioRecord* FindScenario(const JobRecord& job, const std::string& scenario_id);
  ScenarioRecord* Resolve(const ScenarioRef& ref);

  // The only way a scenario's state or agent changes (the indexes follow).
  void Move(JobRecord& job, ScenarioRecord& scenario, v1::ScenarioState state,
            const std::string& agent_id);

  // PENDING scenarios, in job id then scenario order.
  const std::set<ScenarioRef>& pending() const { return pending_; }
  // Active scenarios assigned to `agent_id`, in job id then scenario order.
  std::vector<ScenarioRef> ActiveOn(const std::string& agent_id) const;
  // Every agent holding an active scenario (after recovery: the agents to wait for).
  std::vector<std::pair<std::string, ScenarioRef>> AllActive() const;

  // The job's index in submission order (FIFO within a priority); -1 if unknown.
  int64_t SubmitSeq(const std::string& job_id) const;
  // Job ids, oldest first.
  const std::vector<std::string>& submit_order() const { return submit_order_; }
  size_t size() const { return jobs_.size(); }

  // The latest progress of a scenario, or null.
  void SetProgress(const std::string& job_id, const std::string& scenario_id,
                   const v1::Progress& progress);
  const v1::Progress* Progress(const std::string& job_id, const std::string& scenario_id) const;
  // Forgets it (a requeued scenario has made no progress yet).
  void ClearProgress(const std::string& job_id, const std::string& scenario_id);

 private:
  void Index(const JobRecord& job, size_t index);
  void Unindex(const JobRecord& job, size_t index);

  std::map<std::string, JobRecord> jobs_;
  std::vector<std::string> submit_order_;
  std::map<std::string, int64_t> submit_seq_;
  std::set<ScenarioRef> pending_;
  std::map<std::string, std::set<ScenarioRef>> active_by_agent_;
  std::map<std::pair<std::string, std::string>, v1::Progress> progress_;
};

}  // namespace kvbench::controller
