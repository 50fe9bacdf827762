#pragma once

#include <vector>

#include "kvbench/v1/agent.pb.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::kvctl {

// The capabilities `kvctl run`'s embedded agent registers with: what this machine offers
// (`discovered`), raised so that the controller's scheduler (controller/scheduler RequirementsOf)
// places every scenario of the run on it. The user chose this machine by running here: what it
// really lacks (a profile that does not load, too few GPUs, no room on the NVMe path) fails the
// scenario with the agent's own error, as `kvctl run` always has, instead of leaving it queued
// for an agent that will never come. Pure.
v1::AgentCapabilities LocalCapabilities(v1::AgentCapabilities discovered, const v1::JobSpec& spec,
                                        const std::vector<v1::Scenario>& scenarios);

}  // namespace kvbench::kvctl
