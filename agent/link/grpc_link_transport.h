#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "agent/link/link_transport.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::agent {

// LinkTransport over a gRPC channel to the controller's AgentLink service, with the callback
// API (grpc::ClientBidiReactor): one write in flight per stream, the rest queued.
// INVALID_ARGUMENT / NOT_FOUND / FAILED_PRECONDITION when the TLS files do not load.
absl::StatusOr<std::unique_ptr<LinkTransport>> CreateGrpcLinkTransport(
    const std::string& controller_address, const v1::TlsConfig& tls, bool insecure);

}  // namespace kvbench::agent
