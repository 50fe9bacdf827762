#pragma once

// Every agent the controller has seen, with what it said it can do and when it was last heard
// from. Every method is safe to call from any thread.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kvbench/v1/agent.pb.h"

namespace kvbench::controller {

struct AgentRecord {
  v1::AgentCapabilities capabilities;
  absl::Time last_seen;
};

class AgentStore {
 public:
  virtual ~AgentStore() = default;

  // Inserts or replaces the agent named by capabilities.agent_id (INVALID_ARGUMENT if empty).
  virtual absl::Status UpsertAgent(const v1::AgentCapabilities& capabilities,
                                   absl::Time last_seen) = 0;
  // Every agent ever seen, ordered by id.
  virtual absl::StatusOr<std::vector<AgentRecord>> ListAgents() = 0;
};

}  // namespace kvbench::controller
