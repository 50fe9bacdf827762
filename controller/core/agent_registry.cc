#include "controller/core/agent_registry.h"

namespace kvbench::controller {

AgentChannel* AgentRegistry::Attach(AgentChannel* channel,
                                    const v1::AgentCapabilities& capabilities,
                                    absl::Duration now_monotonic, absl::Time now) {
  AgentEntry& entry = agents_[capabilities.agent_id()];
  AgentChannel* replaced = entry.channel;
  if (replaced != nullptr) by_channel_.erase(replaced);
  entry.capabilities = capabilities;
  entry.channel = channel;
  entry.last_contact = now_monotonic;
  entry.last_heartbeat = now;
  by_channel_[channel] = capabilities.agent_id();
  return replaced;
}

std::string AgentRegistry::Detach(AgentChannel* channel) {
  auto it = by_channel_.find(channel);
  if (it == by_channel_.end()) return "";
  std::string agent_id = it->second;
  by_channel_.erase(it);
  agents_[agent_id].channel = nullptr;
  return agent_id;
}

void AgentRegistry::Remember(const v1::AgentCapabilities& capabilities,
                             absl::Duration now_monotonic) {
  auto [it, inserted] = agents_.try_emplace(capabilities.agent_id());
  if (!inserted) return;
  it->second.capabilities = capabilities;
  it->second.last_contact = now_monotonic;
}

AgentEntry* AgentRegistry::Find(const std::string& agent_id) {
  auto it = agents_.find(agent_id);
  return it == agents_.end() ? nullptr : &it->second;
}

AgentEntry* AgentRegistry::FindByChannel(AgentChannel* channel) {
  auto it = by_channel_.find(channel);
  return it == by_channel_.end() ? nullptr : Find(it->second);
}

std::vector<std::string> AgentRegistry::Silent(absl::Duration now_monotonic,
                                               absl::Duration timeout) const {
  std::vector<std::string> silent;
  for (const auto& [agent_id, entry] : agents_) {
    const bool holds_work = entry.channel != nullptr || !entry.running_scenario_id.empty();
    if (holds_work && now_monotonic - entry.last_contact > timeout) silent.push_back(agent_id);
  }
  return silent;
}

std::vector<AgentChannel*> AgentRegistry::Channels() const {
  std::vector<AgentChannel*> channels;
  channels.reserve(by_channel_.size());
  for (const auto& [channel, agent_id] : by_channel_) channels.push_back(channel);
  return channels;
}

std::vector<v1::AgentView> AgentRegistry::Views() const {
  std::vector<v1::AgentView> views;
  views.reserve(agents_.size());
  for (const auto& [agent_id, entry] : agents_) {
    v1::AgentView& view = views.emplace_back();
    *view.mutable_capabilities() = entry.capabilities;
    view.set_state(entry.channel != nullptr ? v1::AGENT_STATE_CONNECTED
                                            : v1::AGENT_STATE_DISCONNECTED);
    if (entry.last_heartbeat != absl::Time()) {
      view.set_last_heartbeat_unix_ms(absl::ToUnixMillis(entry.last_heartbeat));
    }
    view.set_running_scenario_id(entry.running_scenario_id);
    view.set_running_job_id(entry.running_job_id);
  }
  return views;
}

}  // namespace kvbench::controller
