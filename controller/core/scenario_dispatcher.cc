#include "controller/core/scenario_dispatcher.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/placement/placement.h"
#include "controller/spec/job_spec_validator.h"

namespace kvbench::controller {

ScenarioDispatcher::ScenarioDispatcher(JobStateMachine* jobs, AgentRegistry* agents,
                                       bool fail_unplaceable)
    : jobs_(jobs), agents_(agents), fail_unplaceable_(fail_unplaceable) {}

ScenarioDispatcher::Round ScenarioDispatcher::RunRound() {
  JobTable& table = jobs_->table();
  Round round;
  std::vector<QueuedScenario> queue;
  for (const ScenarioRef& ref : table.pending()) {
    const JobRecord& job = *table.Find(ref.first);
    QueuedScenario& queued = queue.emplace_back();
    queued.job_id = job.job_id;
    queued.scenario = job.scenarios[ref.second].scenario;
    queued.spec = &job.spec;
    queued.priority = job.priority;
    queued.submit_seq = table.SubmitSeq(job.job_id);
  }
  round.scenarios_visited = queue.size();
  if (queue.empty()) return round;
  PlacementRound result = Place(queue, agents_->Views());
  for (const Placement& placement : result.placements) {
    JobRecord* job = table.Find(placement.job_id);
    ScenarioRecord* scenario =
        job == nullptr ? nullptr : JobTable::FindScenario(*job, placement.scenario_id);
    AgentEntry* agent = agents_->Find(placement.agent_id);
    if (scenario != nullptr && agent != nullptr && agent->channel != nullptr) {
      if (Assign(*job, *scenario, *agent)) ++round.assigned;
    }
  }
  // A scenario no agent can run keeps waiting (agents may join), its reason saying why. In a
  // closed fleet it fails with that reason when its turn comes: it comes before a scenario placed
  // this round, or nothing was placed and nothing runs (so scenarios not yet reached when a run is
  // cancelled end CANCELLED, as they would on any machine).
  std::map<std::pair<std::string, std::string>, size_t> position;  // (job, scenario) -> order
  for (size_t i = 0; i < queue.size(); ++i) {
    position[{queue[i].job_id, queue[i].scenario.scenario_id()}] = i;
  }
  size_t first_placed = queue.size();
  for (const Placement& placement : result.placements) {
    first_placed = std::min(first_placed, position[{placement.job_id, placement.scenario_id}]);
  }
  const bool idle_fleet = result.placements.empty() && table.AllActive().empty();
  for (const Unplaceable& unplaceable : result.unplaceable) {
    JobRecord* job = table.Find(unplaceable.job_id);
    ScenarioRecord* scenario =
        job == nullptr ? nullptr : JobTable::FindScenario(*job, unplaceable.scenario_id);
    if (scenario == nullptr) continue;
    const bool its_turn =
        idle_fleet || position[{unplaceable.job_id, unplaceable.scenario_id}] < first_placed;
    if (fail_unplaceable_ && its_turn) {
      jobs_->FailUnplaceable(*job, *scenario, unplaceable.reason);
    } else {
      scenario->reason = "waiting: " + unplaceable.reason;
    }
  }
  return round;
}

size_t ScenarioDispatcher::FailOverdueAgentWaits(absl::Time now) {
  JobTable& table = jobs_->table();
  std::vector<ScenarioRef> overdue;  // first collected: failing one changes the pending index
  for (const ScenarioRef& ref : table.pending()) {
    const JobRecord& job = *table.Find(ref.first);
    const std::string& agent_id = job.scenarios[ref.second].scenario.agent_id();
    if (agent_id.empty()) continue;
    // Waiting on its agent means: the agent is down, busy with another job, or idle but unable
    // to take it (the round left a reason). An agent running this job's previous scenario, or
    // idle between two of them (the next round places it), is the part under way.
    const AgentEntry* agent = agents_->Find(agent_id);
    if (agent != nullptr && agent->channel != nullptr) {
      const bool other_job = !agent->running_job_id.empty() && agent->running_job_id != job.job_id;
      const bool idle_but_refused =
          agent->running_job_id.empty() && !job.scenarios[ref.second].reason.empty();
      if (!other_job && !idle_but_refused) continue;
    }
    const v1::Placement& placement = job.spec.placement();
    const double wait_s =
        placement.has_agent_wait_s() ? placement.agent_wait_s() : spec::kDefaultAgentWaitSeconds;
    if (now - job.submit_time >= absl::Seconds(wait_s)) overdue.push_back(ref);
  }
  for (const ScenarioRef& ref : overdue) {
    JobRecord& job = *table.Find(ref.first);
    ScenarioRecord& scenario = job.scenarios[ref.second];
    const std::string& agent_id = scenario.scenario.agent_id();
    const AgentEntry* agent = agents_->Find(agent_id);
    const double wait_s = job.spec.placement().has_agent_wait_s()
                              ? job.spec.placement().agent_wait_s()
                              : spec::kDefaultAgentWaitSeconds;
    std::string why;
    if (agent == nullptr || agent->channel == nullptr) {
      why = absl::StrCat("agent ", agent_id, " was down (not connected) for ", wait_s,
                         " s after the job was submitted (placement.agent_wait_s)");
    } else if (!agent->running_job_id.empty() && agent->running_job_id != job.job_id) {
      why = absl::StrCat("agent ", agent_id, " was busy with job ", agent->running_job_id, " for ",
                         wait_s, " s after the job was submitted (placement.agent_wait_s)");
    } else {
      why = absl::StrCat("agent ", agent_id, " did not take it within ", wait_s,
                         " s of the job's submission (placement.agent_wait_s)",
                         scenario.reason.empty() ? "" : ": ", scenario.reason);
    }
    jobs_->FailUnplaceable(job, scenario, why);
  }
  return overdue.size();
}

bool ScenarioDispatcher::Assign(JobRecord& job, ScenarioRecord& scenario, AgentEntry& agent) {
  return jobs_->Assign(job, scenario, agent.capabilities.agent_id(),
                       [&](v1::Assignment assignment) {
                         agent.running_job_id = job.job_id;
                         agent.running_scenario_id = scenario.scenario.scenario_id();
                         v1::ControllerMessage message;
                         *message.mutable_assignment() = std::move(assignment);
                         agent.channel->Send(std::move(message));
                       });
}

}  // namespace kvbench::controller
