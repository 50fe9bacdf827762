#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "kvbench/v1/agent_link.pb.h"

namespace kvbench::agent {

// One AgentLink.Attach stream, as ControllerLink sees it (no gRPC types: the gRPC reactor lives
// in grpc_link_transport.cc). Writes are queued and sent one at a time, in order.
class LinkStream {
 public:
  // Destruction cancels the stream and waits until it is done (no callback runs afterwards).
  virtual ~LinkStream() = default;
  // Queues `message`; dropped once the stream is finishing or done.
  virtual void Write(v1::AgentMessage message) = 0;
  // Ends the stream from our side; on_done follows (CANCELLED).
  virtual void Cancel() = 0;
};

// What a stream reports, on the transport's threads. They must not block.
struct LinkStreamCallbacks {
  std::function<void(v1::ControllerMessage message)> on_message;
  // Exactly once, last: the stream's final status (OK when the controller finished it).
  std::function<void(absl::Status status)> on_done;
};

// Opens streams to the controller.
class LinkTransport {
 public:
  virtual ~LinkTransport() = default;
  // Starts a stream; failures to connect arrive through callbacks.on_done.
  virtual std::unique_ptr<LinkStream> Open(LinkStreamCallbacks callbacks) = 0;
  // The controller the next stream goes to, for logs; "" when there is nothing to name.
  virtual std::string address() const { return ""; }
};

}  // namespace kvbench::agent
