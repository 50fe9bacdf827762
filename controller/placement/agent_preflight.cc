#include "controller/placement/agent_preflight.h"

#include <algorithm>
#include <map>

#include "common/preflight/preflight_rules.h"

namespace kvbench::controller {
namespace {

bool Same(const v1::PreflightCheck& a, const v1::PreflightCheck& b) {
  return a.SerializeAsString() == b.SerializeAsString();
}

}  // namespace

std::vector<const v1::PreflightCheck*> PreflightBlockers(
    const v1::AgentCapabilities& agent, v1::Tier tier, const std::string& engine_profile,
    const std::optional<std::string>& cache_profile) {
  std::vector<const v1::PreflightCheck*> blockers;
  for (const v1::PreflightCheck& check : agent.preflight()) {
    if (PreflightKeepsOff(check, tier, engine_profile, cache_profile)) blockers.push_back(&check);
  }
  return blockers;
}

bool ApplyHeartbeatPreflight(
    const google::protobuf::RepeatedPtrField<v1::PreflightCheck>& not_passing,
    v1::AgentCapabilities* capabilities) {
  std::map<std::string, const v1::PreflightCheck*> now;
  for (const v1::PreflightCheck& check : not_passing) now[check.name()] = &check;
  bool changed = false;
  for (v1::PreflightCheck& check : *capabilities->mutable_preflight()) {
    auto it = now.find(check.name());
    if (it != now.end()) {
      if (!Same(check, *it->second)) {
        check = *it->second;
        changed = true;
      }
      now.erase(it);
    } else if (!PreflightPasses(check)) {
      const std::string name = check.name();
      check.Clear();
      check.set_name(name);
      check.set_status(v1::PREFLIGHT_OK);
      check.set_detail("passes now (re-checked while idle)");
      changed = true;
    }
  }
  // Checks the registration did not carry, in the heartbeat's order.
  for (const v1::PreflightCheck& check : not_passing) {
    if (now.count(check.name()) == 0) continue;
    *capabilities->add_preflight() = check;
    changed = true;
  }
  return changed;
}

}  // namespace kvbench::controller
