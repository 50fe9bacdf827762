#pragma once

// The controller's view of an agent's preflight: which of its checks keep a scenario
// off it, and how a heartbeat's checks update the view its registration gave. Pure.

#include <optional>
#include <string>
#include <vector>

#include "kvbench/v1/agent.pb.h"
#include "kvbench/v1/agent_link.pb.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench::controller {

// The checks of `agent`'s latest preflight that keep such a scenario off it, in order.
std::vector<const v1::PreflightCheck*> PreflightBlockers(
    const v1::AgentCapabilities& agent, v1::Tier tier, const std::string& engine_profile,
    const std::optional<std::string>& cache_profile);

// Folds a heartbeat's checks (those that do not pass now) into the registration's view
// (`capabilities->preflight`, every check): a check the heartbeat names is replaced by its
// version, one it no longer names that did not pass passes now (OK, "passes now"), and one it
// names that the view lacks is added. Returns whether anything changed.
bool ApplyHeartbeatPreflight(
    const google::protobuf::RepeatedPtrField<v1::PreflightCheck>& not_passing,
    v1::AgentCapabilities* capabilities);

}  // namespace kvbench::controller
