#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/json/proto_json.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::agent {

// Between heartbeats on the controller link.
inline constexpr double kDefaultHeartbeatIntervalSeconds = 5;
// SIGTERM → SIGKILL grace for supervised children (vLLM needs time to free GPU memory).
inline constexpr double kDefaultChildStopGraceSeconds = 30;
// How long scenario folders are kept (scenarios/<job>/<attempt>/); 0 keeps them forever.
inline constexpr double kDefaultScenarioRetentionDays = 30;
inline constexpr double kMaxScenarioRetentionDays = 36500;
// Our own /metrics when the config does not say.
inline constexpr char kDefaultMetricsListen[] = "127.0.0.1:9464";

// Every problem of an agent config, each naming its field. Pure.
FieldErrors ValidateAgentConfig(const v1::AgentConfig& config);

// Fills unset defaults; `hostname` becomes the agent id when none is configured.
void ApplyAgentConfigDefaults(const std::string& hostname, v1::AgentConfig* config);

// Reads, validates and completes the config at `path`: NOT_FOUND if unreadable, INVALID_ARGUMENT
// listing every problem otherwise. Relative paths in it (work_dir, profiles_dir, nvme_cache_dir,
// dataset_cache_dir, a folder dataset_mirror, tls.*) are relative to the config file's folder.
absl::StatusOr<v1::AgentConfig> LoadAgentConfig(const std::string& path,
                                                const std::string& hostname);

}  // namespace kvbench::agent
