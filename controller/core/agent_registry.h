#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "controller/core/agent_channel.h"
#include "kvbench/v1/agent.pb.h"

namespace kvbench::controller {

// What the controller knows of one agent.
struct AgentEntry {
  v1::AgentCapabilities capabilities;
  AgentChannel* channel = nullptr;  // its live stream; null while disconnected
  absl::Duration last_contact;      // monotonic: last registration, heartbeat or event
  absl::Time last_heartbeat;        // wall clock, for views
  std::string running_job_id;       // what it runs now; empty when idle
  std::string running_scenario_id;
  // Its live stream's event numbering (AgentReconciler::AcceptEvent): the last seq taken on it,
  // or the acked_seq its Registered said; and whether an event has come on it yet.
  int64_t stream_seq = 0;
  bool stream_has_event = false;
};

// The agents seen since start (and those the store remembers), keyed by agent id. Plain data
// owned by the JobManager on its loop thread; no locking.
class AgentRegistry {
 public:
  // Registers `channel` for the agent named in `capabilities`; returns the channel it replaces
  // (a stale stream of the same agent, which the caller closes), or null.
  AgentChannel* Attach(AgentChannel* channel, const v1::AgentCapabilities& capabilities,
                       absl::Duration now_monotonic, absl::Time now);
  // Forgets `channel`; returns the agent it belonged to, or "" when it was no agent's live stream
  // (already replaced).
  std::string Detach(AgentChannel* channel);
  // An agent known only from the store (before it reconnects after a controller restart).
  void Remember(const v1::AgentCapabilities& capabilities, absl::Duration now_monotonic);

  AgentEntry* Find(const std::string& agent_id);
  // The agent whose live stream is `channel`, or null.
  AgentEntry* FindByChannel(AgentChannel* channel);
  // Connected agents silent for longer than `timeout`, and disconnected agents holding a
  // scenario whose last contact is older than `timeout`.
  std::vector<std::string> Silent(absl::Duration now_monotonic, absl::Duration timeout) const;

  // The scheduler's and ListAgents' view, ordered by agent id.
  std::vector<v1::AgentView> Views() const;
  size_t connected_count() const { return by_channel_.size(); }
  // Every live stream.
  std::vector<AgentChannel*> Channels() const;

 private:
  std::map<std::string, AgentEntry> agents_;
  std::map<AgentChannel*, std::string> by_channel_;
};

}  // namespace kvbench::controller
