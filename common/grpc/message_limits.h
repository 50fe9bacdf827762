#pragma once

// The size of one message on the agent link, the same number on both sides: the controller's
// server accepts AgentMessages up to kMaxAgentMessageBytes (gRPC's default receive limit, set
// explicitly, controller/service/grpc_server_service.cc), and an agent spools and sends no event
// larger than kMaxEventBytes (agent/link/event_spool.h). An event over it would be refused by the
// controller on every reconnect, forever; the agent turns it into its scenario's named failure
// instead (agent/link/oversize_event.h).

#include <cstddef>

namespace kvbench {

inline constexpr size_t kMaxAgentMessageBytes = size_t{4} << 20;
// Room for the AgentMessage around an event (a tag and a length: a few bytes).
inline constexpr size_t kMaxEventBytes = kMaxAgentMessageBytes - 4096;

}  // namespace kvbench
