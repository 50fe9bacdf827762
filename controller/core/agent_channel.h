#pragma once

#include "absl/status/status.h"
#include "kvbench/v1/agent_link.pb.h"

namespace kvbench::controller {

// The controller's end of one agent's Attach stream, as the job manager sees it (the gRPC reactor
// implements it in service/agent_link_service.cc; tests use a fake). Both methods may be called
// from any thread and never block.
class AgentChannel {
 public:
  virtual ~AgentChannel() = default;

  // Queues `message` for the agent; messages go out in order, one write in flight. Dropped once
  // the stream has ended.
  virtual void Send(v1::ControllerMessage message) = 0;
  // Ends the stream with `status` (a newer stream of the same agent, missed heartbeats).
  virtual void Close(const absl::Status& status) = 0;
};

}  // namespace kvbench::controller
