#include "controller/core/scenario_dispatcher.h"

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
  // A scenario no agent can run keeps waiting (agents may join), its reason saying why; in a
  // closed fleet it fails with that reason.
  for (const Unplaceable& unplaceable : result.unplaceable) {
    JobRecord* job = table.Find(unplaceable.job_id);
    ScenarioRecord* scenario =
        job == nullptr ? nullptr : JobTable::FindScenario(*job, unplaceable.scenario_id);
    if (scenario == nullptr) continue;
    if (fail_unplaceable_) {
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
