#include "controller/core/scenario_dispatcher.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "controller/scheduler/scheduler.h"

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
  ScheduleResult result = Schedule(queue, agents_->Views());
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
