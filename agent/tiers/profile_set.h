#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kvbench/v1/profile.pb.h"

namespace kvbench::agent::tiers {

// How long a process may take to become ready when its profile does not say (profile.proto):
// an engine loads a model, a cache server pins its pool.
inline constexpr absl::Duration kDefaultEngineReadyTimeout = absl::Seconds(600);
inline constexpr absl::Duration kDefaultCacheServerReadyTimeout = absl::Seconds(120);

// The profile's ready_timeout_s, else the default of its role.
absl::Duration ReadyTimeout(const v1::Profile& profile);

// The profiles an agent loaded from its profiles_dir (deploy/profiles/*.json), validated once at
// start: unknown JSON fields rejected; name = the file stem; role set; command non-empty;
// ENGINE profiles with an engine (and a vendor + visible_devices_env for VLLM); CACHE_SERVER
// profiles with tiers among CPU_RAM/NVME; extra_args each starting with "--". Every problem of
// every file is reported, each naming file and field (INVALID_ARGUMENT).
class ProfileSet {
 public:
  static absl::StatusOr<ProfileSet> LoadDir(const std::string& dir);
  static absl::StatusOr<ProfileSet> FromProfiles(std::vector<v1::Profile> profiles);

  // NOT_FOUND naming the profile and the directory's profiles.
  absl::StatusOr<const v1::Profile*> Find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::string source_;  // the directory, or "(given profiles)"
  std::map<std::string, v1::Profile> profiles_;
};

}  // namespace kvbench::agent::tiers
