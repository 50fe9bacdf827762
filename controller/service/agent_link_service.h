#pragma once

#include <grpcpp/grpcpp.h>

#include "common/loop/executor.h"
#include "controller/core/job_manager.h"
#include "kvbench/v1/agent_link.grpc.pb.h"

namespace kvbench::controller {

// AgentLink.Attach over gRPC's callback API: one reactor per agent stream, adapting it to the
// JobManager's AgentChannel and On* handlers. Every message is handed to the executor's thread;
// the next read starts only once the manager has handled the previous message (so a fast agent
// is held back by flow control, not queued without bound). Writes go out one at a time.
// With `require_client_certificate` a stream whose peer presented no verified client certificate
// is refused with UNAUTHENTICATED (and one log line).
class AgentLinkService final : public v1::AgentLink::CallbackService {
 public:
  AgentLinkService(JobManager* manager, Executor* executor, bool require_client_certificate);

  grpc::ServerBidiReactor<v1::AgentMessage, v1::ControllerMessage>* Attach(
      grpc::CallbackServerContext* context) override;

 private:
  JobManager* const manager_;
  Executor* const executor_;
  const bool require_client_certificate_;
};

}  // namespace kvbench::controller
