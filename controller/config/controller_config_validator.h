#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/grpc/agent_link_limits.h"
#include "common/json/proto_json.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::controller {

// An agent silent for longer is lost and its scenario requeued.
inline constexpr double kDefaultHeartbeatTimeoutSeconds = 30;
// A scenario its agent has not started for longer after its assignment is lost and requeued.
inline constexpr double kDefaultAssignmentTimeoutSeconds = 120;
// A RUNNING scenario with no event from its agent for longer is lost and requeued; the floor is
// twice the keepalive a running scenario's events keep (kScenarioKeepalivePeriod).
inline constexpr double kDefaultEventSilenceTimeoutSeconds = 600;
inline constexpr double kMinEventSilenceTimeoutSeconds = 60;
static_assert(kMinEventSilenceTimeoutSeconds >= 2 * kScenarioKeepaliveSeconds);
// Attempts per scenario (the first run plus requeues after lost agents) before it fails.
inline constexpr int kDefaultMaxScenarioAttempts = 3;
inline constexpr int kMaxScenarioAttempts = 100;
// Per-request records (not results) older than this many days are deleted; 0 keeps them.
inline constexpr double kDefaultRequestRetentionDays = 90;
inline constexpr double kMaxRequestRetentionDays = 36500;

// Every problem of a controller config, each naming its field. Pure.
FieldErrors ValidateControllerConfig(const v1::ControllerConfig& config);

void ApplyControllerConfigDefaults(v1::ControllerConfig* config);

// Reads, validates and completes the config at `path`. Relative paths in it (data_dir, tls.*)
// are relative to the config file's folder.
absl::StatusOr<v1::ControllerConfig> LoadControllerConfig(const std::string& path);

}  // namespace kvbench::controller
