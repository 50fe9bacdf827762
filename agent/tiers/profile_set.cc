#include "agent/tiers/profile_set.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/tiers/profile_validator.h"
#include "common/json/validated_json.h"
#include "common/status/status_macros.h"

namespace kvbench::agent::tiers {
namespace {

namespace fs = std::filesystem;

constexpr char kGivenProfiles[] = "(given profiles)";

// The *.json files of `dir`, sorted, so problems are reported in a stable order.
absl::StatusOr<std::vector<fs::path>> ListProfileFiles(const std::string& dir) {
  std::error_code error;
  fs::directory_iterator it(dir, error);
  if (error) {
    return absl::NotFoundError(
        absl::StrCat("cannot read the profiles directory ", dir, ": ", error.message()));
  }
  std::vector<fs::path> files;
  for (; it != fs::directory_iterator(); it.increment(error)) {
    if (error) break;
    if (it->path().extension() == ".json" && it->is_regular_file(error)) {
      files.push_back(it->path());
    }
  }
  if (error) {
    return absl::NotFoundError(
        absl::StrCat("cannot list the profiles directory ", dir, ": ", error.message()));
  }
  std::sort(files.begin(), files.end());
  return files;
}

// One file: JSON (unknown fields rejected) → Profile, validated with name = the file's stem.
// INVALID_ARGUMENT headed by the path, listing every problem with its field.
absl::StatusOr<v1::Profile> LoadProfileFile(const fs::path& path) {
  KV_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path.string()));
  v1::Profile profile;
  FieldErrors conversion = ParseJsonToProto(text, &profile);
  const bool syntax_error = !conversion.empty() && conversion.errors().front().field.empty();
  if (syntax_error) return conversion.ToStatus(path.string());
  FieldErrors semantic = ValidateProfile(profile, path.stem().string());
  KV_RETURN_IF_ERROR(MergeFieldErrors(conversion, semantic).ToStatus(path.string()));
  return profile;
}

}  // namespace

absl::Duration ReadyTimeout(const v1::Profile& profile) {
  if (profile.has_ready_timeout_s()) return absl::Seconds(profile.ready_timeout_s());
  return profile.role() == v1::CACHE_SERVER ? kDefaultCacheServerReadyTimeout
                                            : kDefaultEngineReadyTimeout;
}

absl::StatusOr<ProfileSet> ProfileSet::LoadDir(const std::string& dir) {
  KV_ASSIGN_OR_RETURN(std::vector<fs::path> files, ListProfileFiles(dir));
  if (files.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("no profiles (*.json) in ", dir));
  }
  ProfileSet set;
  set.source_ = dir;
  std::vector<std::string> problems;
  for (const fs::path& file : files) {
    absl::StatusOr<v1::Profile> profile = LoadProfileFile(file);
    if (!profile.ok()) {
      problems.emplace_back(profile.status().message());
      continue;
    }
    std::string name = profile->name();
    set.profiles_.emplace(std::move(name), *std::move(profile));
  }
  if (!problems.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("profiles in ", dir, ": ", problems.size(),
                                                   " of ", files.size(), " files invalid\n",
                                                   absl::StrJoin(problems, "\n")));
  }
  return set;
}

absl::StatusOr<ProfileSet> ProfileSet::FromProfiles(std::vector<v1::Profile> profiles) {
  ProfileSet set;
  set.source_ = kGivenProfiles;
  std::vector<std::string> problems;
  for (size_t i = 0; i < profiles.size(); ++i) {
    const std::string what = absl::StrCat("profile[", i, "] \"", profiles[i].name(), "\"");
    absl::Status status = ValidateProfile(profiles[i], std::nullopt).ToStatus(what);
    if (!status.ok()) {
      problems.emplace_back(status.message());
    } else if (set.profiles_.count(profiles[i].name()) > 0) {
      problems.push_back(absl::StrCat(what, ": name: is used by an earlier profile"));
    } else {
      std::string name = profiles[i].name();
      set.profiles_.emplace(std::move(name), std::move(profiles[i]));
    }
  }
  if (!problems.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid profiles:\n", absl::StrJoin(problems, "\n")));
  }
  return set;
}

absl::StatusOr<const v1::Profile*> ProfileSet::Find(const std::string& name) const {
  auto it = profiles_.find(name);
  if (it == profiles_.end()) {
    return absl::NotFoundError(absl::StrCat("no profile \"", name, "\" in ", source_,
                                            "; profiles: ", absl::StrJoin(names(), ", ")));
  }
  return &it->second;
}

std::vector<std::string> ProfileSet::names() const {
  std::vector<std::string> out;
  out.reserve(profiles_.size());
  for (const auto& [name, unused] : profiles_) out.push_back(name);
  return out;
}

}  // namespace kvbench::agent::tiers
