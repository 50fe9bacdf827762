#pragma once

#include <grpcpp/grpcpp.h>

#include <optional>

#include "absl/status/status.h"
#include "common/auth/token_verifier.h"

namespace kvbench::controller {

// A Controller call's bearer token checked (the leader's services and a standby's alike): OK in
// insecure mode (`tokens` nullopt) or when `tokens` accepts the call's "authorization" metadata;
// UNAUTHENTICATED otherwise, logged with `method` and the peer.
absl::Status AuthenticateCall(const std::optional<TokenVerifier>& tokens,
                              grpc::CallbackServerContext* context, const char* method);

}  // namespace kvbench::controller
