#include "controller/service/standby_agent_link_service.h"

#include "common/grpc/grpc_status.h"
#include "common/grpc/leader_hint.h"

namespace kvbench::controller {
namespace {

class RefusedAttach : public grpc::ServerBidiReactor<v1::AgentMessage, v1::ControllerMessage> {
 public:
  explicit RefusedAttach(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerBidiReactor<v1::AgentMessage, v1::ControllerMessage>* StandbyAgentLinkService::Attach(
    grpc::CallbackServerContext* context) {
  const absl::Status refusal = leader_->Refusal("an agent's link");
  AddLeaderHint(context, leader_->LeaderAddress());
  MarkAnswered(context, refusal);
  return new RefusedAttach(refusal);
}

}  // namespace kvbench::controller
