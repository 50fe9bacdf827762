#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "agent/link/link_transport.h"
#include "common/grpc/controller_addresses.h"

namespace kvbench::agent {

// LinkTransport over several controllers that share a store (one leads, the others are standbys):
// a stream opens to the current address; when it ends, the next one opens where
// ControllerAddresses moves (the leader a standby named, else the next address in the list).
// ControllerLink's backoff paces the attempts, and its replay from the spool makes a stream to a
// new leader carry on where the last one stopped. One transport per address, made on first use.
class FailoverLinkTransport : public LinkTransport {
 public:
  using TransportFactory =
      std::function<absl::StatusOr<std::unique_ptr<LinkTransport>>(const std::string& address)>;

  // The current address's transport is made now: its error (bad TLS files) is returned.
  static absl::StatusOr<std::unique_ptr<FailoverLinkTransport>> Create(
      ControllerAddresses addresses, TransportFactory factory);

  std::unique_ptr<LinkStream> Open(LinkStreamCallbacks callbacks) override;
  std::string address() const override;

 private:
  struct State {
    mutable std::mutex mu;
    ControllerAddresses addresses;
    explicit State(ControllerAddresses list) : addresses(std::move(list)) {}
  };
  FailoverLinkTransport(std::shared_ptr<State> state, TransportFactory factory)
      : state_(std::move(state)), factory_(std::move(factory)) {}
  // The transport of `address`, made when first needed.
  absl::StatusOr<LinkTransport*> TransportFor(const std::string& address);

  std::shared_ptr<State> state_;  // shared with the streams' callbacks
  TransportFactory factory_;
  std::map<std::string, std::unique_ptr<LinkTransport>> transports_;  // Open's thread only
};

}  // namespace kvbench::agent
