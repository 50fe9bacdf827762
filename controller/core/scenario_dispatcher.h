#pragma once

#include <cstddef>

#include "controller/core/agent_registry.h"
#include "controller/core/job_state_machine.h"

namespace kvbench::controller {

// One scheduling round: the PENDING scenarios (the JobTable's index, never a walk over finished
// jobs) are placed on the agents by the placement function (placement/placement.h), each placement
// is recorded by the JobStateMachine and sent to its agent as an Assignment; a scenario no
// connected agent can run keeps waiting with the reason (agents may join), or, when
// `fail_unplaceable` (a closed fleet, JobManagerOptions), fails with it when its turn comes. On the
// loop thread.
class ScenarioDispatcher {
 public:
  // Both borrowed; they must outlive this.
  ScenarioDispatcher(JobStateMachine* jobs, AgentRegistry* agents, bool fail_unplaceable);

  struct Round {
    size_t scenarios_visited = 0;  // the pending scenarios the round looked at
    size_t assigned = 0;
  };
  Round RunRound();
  // FAN_OUT_EACH scenarios still waiting for their agent placement.agent_wait_s after the job was
  // submitted fail, naming why (the agent is down, or busy with another job); the job's other
  // agents go on. A scenario whose agent runs (or is between) the same job's scenarios is under
  // way, not waiting. Returns how many failed.
  size_t FailOverdueAgentWaits(absl::Time now);

 private:
  bool Assign(JobRecord& job, ScenarioRecord& scenario, AgentEntry& agent);

  JobStateMachine* const jobs_;
  AgentRegistry* const agents_;
  const bool fail_unplaceable_;
};

}  // namespace kvbench::controller
