#pragma once

#include <grpcpp/grpcpp.h>

#include "controller/lease/leader_view.h"
#include "kvbench/v1/agent_link.grpc.pb.h"

namespace kvbench::controller {

// The AgentLink service of a standby: every Attach is refused at once with UNAVAILABLE naming the
// leader, its address in the trailing metadata, so the agent's link dials the leader next
// (agent/link/failover_link_transport.h) and replays its spool there.
class StandbyAgentLinkService final : public v1::AgentLink::CallbackService {
 public:
  explicit StandbyAgentLinkService(const LeaderView* leader) : leader_(leader) {}

  grpc::ServerBidiReactor<v1::AgentMessage, v1::ControllerMessage>* Attach(
      grpc::CallbackServerContext* context) override;

 private:
  const LeaderView* const leader_;
};

}  // namespace kvbench::controller
