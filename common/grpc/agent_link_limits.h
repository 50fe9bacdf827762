#pragma once

// The agent link's bounds that both sides hold to, beside the message sizes
// (common/grpc/message_limits.h).

#include <cstdint>

#include "absl/time/time.h"

namespace kvbench {

// An agent's event seqs run from 1 to this; the controller refuses any other (and a gap), the
// agent's spool never numbers past it (agent/link/event_spool.cc).
inline constexpr int64_t kMaxAgentEventSeq = int64_t{1} << 62;

// A running scenario sends an event at least this often, in every phase: a progress event that
// repeats its phase when nothing else was sent (a replica loading its weights for minutes, the
// warm-up). The controller's event_silence_timeout_s is at least twice this, so a silent attempt
// is one whose agent stopped delivering, not one that is slow.
inline constexpr int kScenarioKeepaliveSeconds = 30;
inline constexpr absl::Duration kScenarioKeepalivePeriod = absl::Seconds(kScenarioKeepaliveSeconds);

}  // namespace kvbench
