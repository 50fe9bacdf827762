#pragma once

// An event too large for the agent link (common/grpc/message_limits.h) can never be delivered:
// the controller refuses it on every attempt and the stream restarts, forever. Before it is
// spooled it is replaced, under the same seq, by its scenario's failure naming what could not be
// sent, so the scenario ends visibly and the events after it flow.

#include "kvbench/v1/event.pb.h"

namespace kvbench::agent {

// True, and `event` replaced by a StateChange FAILED for its job, scenario and attempt (its
// agent_id, seq and unix_ms kept), when its serialized size is over kMaxEventBytes.
bool ReplaceOversizeEvent(v1::Event* event);

}  // namespace kvbench::agent
