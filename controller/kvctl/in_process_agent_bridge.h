#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "agent/link/link_transport.h"
#include "common/loop/executor.h"
#include "controller/core/job_manager.h"

namespace kvbench::kvctl {

// `kvctl run`'s AgentLink without a network: an agent::LinkTransport for the embedded agent's
// ControllerLink whose every stream is, on the controller's side, a controller::AgentChannel of
// the embedded JobManager. The link's writes become OnRegister / OnHeartbeat / OnEvent calls
// posted to the manager's executor (in order); the manager's Send and Close feed the link's
// on_message and on_done. Either side ending a stream ends it once: on_done once, then
// OnDisconnect once (posted after every message written before the end). A Register the manager
// refuses, or an event it refuses, ends the stream with the manager's status, as the gRPC service
// does.
class InProcessAgentBridge : public agent::LinkTransport {
 public:
  // `manager` and `executor` (the manager's) are borrowed and must outlive the bridge.
  InProcessAgentBridge(controller::JobManager* manager, Executor* executor);
  ~InProcessAgentBridge() override;

  std::unique_ptr<agent::LinkStream> Open(agent::LinkStreamCallbacks callbacks) override;

 private:
  class Stream;

  controller::JobManager* const manager_;
  Executor* const executor_;
  std::mutex mu_;
  // Every stream opened, kept for the bridge's life: the manager may hold a channel until it
  // has heard OnDisconnect, and tasks posted to the executor hold them too.
  std::vector<std::shared_ptr<Stream>> streams_;
};

}  // namespace kvbench::kvctl
