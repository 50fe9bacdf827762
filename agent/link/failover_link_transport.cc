#include "agent/link/failover_link_transport.h"

#include <utility>

#include "common/status/status_macros.h"

namespace kvbench::agent {
namespace {

// A stream that could not be opened at all: it ends at once with why.
class FailedStream : public LinkStream {
 public:
  void Write(v1::AgentMessage) override {}
  void Cancel() override {}
};

}  // namespace

absl::StatusOr<std::unique_ptr<FailoverLinkTransport>> FailoverLinkTransport::Create(
    ControllerAddresses addresses, TransportFactory factory) {
  auto state = std::make_shared<State>(std::move(addresses));
  std::unique_ptr<FailoverLinkTransport> transport(
      new FailoverLinkTransport(state, std::move(factory)));
  KV_RETURN_IF_ERROR(transport->TransportFor(state->addresses.current()).status());
  return transport;
}

absl::StatusOr<LinkTransport*> FailoverLinkTransport::TransportFor(const std::string& address) {
  auto it = transports_.find(address);
  if (it == transports_.end()) {
    KV_ASSIGN_OR_RETURN(std::unique_ptr<LinkTransport> made, factory_(address));
    it = transports_.emplace(address, std::move(made)).first;
  }
  return it->second.get();
}

std::string FailoverLinkTransport::address() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->addresses.current();
}

std::unique_ptr<LinkStream> FailoverLinkTransport::Open(LinkStreamCallbacks callbacks) {
  const std::string target = address();
  absl::StatusOr<LinkTransport*> transport = TransportFor(target);
  std::shared_ptr<State> state = state_;
  auto on_done = [state, done = std::move(callbacks.on_done)](absl::Status status) {
    // Every end moves on, even OK (the controller stopped and finished its streams) and
    // CANCELLED (ControllerLink gave up on a controller that did not answer Register: a leader
    // paused past its lease). A leader still in office is named by the next standby asked.
    {
      std::lock_guard<std::mutex> lock(state->mu);
      state->addresses.MoveOn(status);
    }
    done(std::move(status));
  };
  if (!transport.ok()) {
    on_done(transport.status());
    return std::make_unique<FailedStream>();
  }
  callbacks.on_done = std::move(on_done);
  return (*transport)->Open(std::move(callbacks));
}

}  // namespace kvbench::agent
