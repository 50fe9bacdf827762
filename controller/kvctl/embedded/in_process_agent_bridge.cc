#include "controller/kvctl/embedded/in_process_agent_bridge.h"

#include <utility>

namespace kvbench::kvctl {

// One stream: the controller's AgentChannel and the state both sides share.
class InProcessAgentBridge::Stream : public controller::AgentChannel,
                                     public std::enable_shared_from_this<Stream> {
 public:
  Stream(controller::JobManager* manager, Executor* executor, agent::LinkStreamCallbacks callbacks)
      : manager_(manager), executor_(executor), callbacks_(std::move(callbacks)) {}

  // --- controller::AgentChannel (the manager's thread)
  void Send(v1::ControllerMessage message) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ended_) callbacks_.on_message(std::move(message));
  }
  void Close(const absl::Status& status) override { End(status); }

  // --- the agent's side (the link's thread)
  void Write(v1::AgentMessage message) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (ended_) return;
    }
    executor_->Post(
        "kvctl.bridge.agent_message",
        [self = shared_from_this(), message = std::move(message)] { self->Deliver(message); });
  }

  // Ends the stream once: on_done(status), then the manager hears OnDisconnect.
  void End(const absl::Status& status) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (ended_) return;
      ended_ = true;
      callbacks_.on_done(status);
    }
    executor_->Post("kvctl.bridge.disconnect",
                    [self = shared_from_this()] { self->manager_->OnDisconnect(self.get()); });
  }

 private:
  // On the manager's executor.
  void Deliver(const v1::AgentMessage& message) {
    if (absl::Status status = manager_->OnAgentMessage(this, message); !status.ok()) End(status);
  }

  controller::JobManager* const manager_;
  Executor* const executor_;
  const agent::LinkStreamCallbacks callbacks_;
  std::mutex mu_;
  bool ended_ = false;  // guarded by mu_
};

namespace {

// The link's handle on a stream; destroying it cancels the stream.
class StreamHandle : public agent::LinkStream {
 public:
  using EndFn = std::function<void(const absl::Status&)>;
  using WriteFn = std::function<void(v1::AgentMessage)>;
  StreamHandle(WriteFn write, EndFn end) : write_(std::move(write)), end_(std::move(end)) {}
  ~StreamHandle() override { Cancel(); }
  void Write(v1::AgentMessage message) override { write_(std::move(message)); }
  void Cancel() override { end_(absl::CancelledError("the agent ended the stream")); }

 private:
  const WriteFn write_;
  const EndFn end_;
};

}  // namespace

InProcessAgentBridge::InProcessAgentBridge(ManagerFn manager, Executor* executor)
    : manager_(std::move(manager)), executor_(executor) {}

InProcessAgentBridge::~InProcessAgentBridge() = default;

std::unique_ptr<agent::LinkStream> InProcessAgentBridge::Open(
    agent::LinkStreamCallbacks callbacks) {
  auto stream = std::make_shared<Stream>(manager_(), executor_, std::move(callbacks));
  {
    std::lock_guard<std::mutex> lock(mu_);
    streams_.push_back(stream);
  }
  return std::make_unique<StreamHandle>(
      [stream](v1::AgentMessage message) { stream->Write(std::move(message)); },
      [stream](const absl::Status& status) { stream->End(status); });
}

}  // namespace kvbench::kvctl
