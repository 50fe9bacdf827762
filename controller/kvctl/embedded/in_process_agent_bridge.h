#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "agent/link/link_transport.h"
#include "common/loop/executor.h"
#include "controller/core/job_manager.h"

namespace kvbench::kvctl {

// `kvctl run`'s AgentLink without a network: an agent::LinkTransport for the embedded agent's
// ControllerLink whose every stream is, on the controller's side, a controller::AgentChannel of
// the embedded JobManager. The link's writes become JobManager::OnAgentMessage calls posted to
// the manager's executor (in order; the manager holds the stream protocol, Register first
// included, as for the gRPC service); the manager's Send and Close feed the link's on_message and
// on_done. Either side ending a stream ends it once: on_done once, then OnDisconnect once (posted
// after every message written before the end). A message the manager refuses ends the stream
// with the manager's status, as the gRPC service does.
class InProcessAgentBridge : public agent::LinkTransport {
 public:
  // The manager streams open on: asked at each Open (the agent is made before the controller
  // has its store, and opens its first stream when it starts).
  using ManagerFn = std::function<controller::JobManager*()>;

  // `executor` (the manager's) is borrowed and must outlive the bridge, as must the manager.
  InProcessAgentBridge(ManagerFn manager, Executor* executor);
  ~InProcessAgentBridge() override;

  std::unique_ptr<agent::LinkStream> Open(agent::LinkStreamCallbacks callbacks) override;

 private:
  class Stream;

  const ManagerFn manager_;
  Executor* const executor_;
  std::mutex mu_;
  // Every stream opened, kept for the bridge's life: the manager may hold a channel until it
  // has heard OnDisconnect, and tasks posted to the executor hold them too.
  std::vector<std::shared_ptr<Stream>> streams_;
};

}  // namespace kvbench::kvctl
