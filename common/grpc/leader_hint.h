#pragma once

// Where the leader is, as a standby controller tells a client it cannot serve: the refusal is
// UNAVAILABLE (nothing was done; the call may go to the leader as is) with the leader's address
// in the trailing metadata under kLeaderMetadataKey. Clients carry it on the absl::Status as a
// payload, so the code that picks the next address needs no gRPC types.

#include <grpcpp/client_context.h>
#include <grpcpp/server_context.h>

#include <string>

#include "absl/status/status.h"

namespace kvbench {

inline constexpr char kLeaderMetadataKey[] = "kvbench-leader";
// Set on every UNAVAILABLE a controller answers itself (its store out of reach, a standby's
// refusal), so a client tells it from a controller it could not reach.
inline constexpr char kAnsweredMetadataKey[] = "kvbench-answered";

// Server side: names `leader_address` ("host:port") in the call's trailing metadata; nothing when
// empty (no leader known).
void AddLeaderHint(grpc::CallbackServerContext* context, const std::string& leader_address);
// Server side, before finishing a call with `status`: marks an UNAVAILABLE as the controller's
// own answer.
void MarkAnswered(grpc::CallbackServerContext* context, const absl::Status& status);

// Client side, after the call finished: `status` with the address the server named (if any) and
// whether a controller answered it.
absl::Status WithLeaderHint(absl::Status status, const grpc::ClientContext& context);
// True when WithLeaderHint found the answered mark: a controller was reached.
bool AnsweredByController(const absl::Status& status);

// `status` carrying `leader_address` (what WithLeaderHint attaches; nothing when empty or OK).
absl::Status WithLeaderAddress(absl::Status status, const std::string& leader_address);

// The address WithLeaderHint attached, or "".
std::string LeaderHint(const absl::Status& status);

}  // namespace kvbench
