#pragma once

#include <optional>
#include <string>

#include "common/json/proto_json.h"
#include "kvbench/v1/profile.pb.h"

namespace kvbench::agent::tiers {

// Longest ready_timeout_s a profile may set: a day.
inline constexpr double kMaxReadyTimeoutSeconds = 86400;

// Every problem of one profile, each naming its field (pure): name set (and equal to
// `expected_name`, the file's stem, when given); role set; command non-empty with no empty
// element; ENGINE profiles with an engine, no tiers, and for VLLM a vendor and a
// visible_devices_env; CACHE_SERVER profiles with distinct tiers among CPU_RAM/NVME; extra_args
// each starting with "--"; env names and visible_devices_env valid variable names;
// ready_timeout_s in (0, kMaxReadyTimeoutSeconds].
FieldErrors ValidateProfile(const v1::Profile& profile,
                            const std::optional<std::string>& expected_name);

}  // namespace kvbench::agent::tiers
