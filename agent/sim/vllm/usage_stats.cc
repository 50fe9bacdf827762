#include "agent/sim/vllm/usage_stats.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace kvbench::sim {
namespace {

bool IsOne(const char* value) { return value != nullptr && std::string(value) == "1"; }

std::string ConfigRoot(const std::function<const char*(const char*)>& getenv) {
  if (const char* root = getenv("VLLM_CONFIG_ROOT"); root != nullptr && *root != '\0') return root;
  if (const char* xdg = getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    return absl::StrCat(xdg, "/vllm");
  }
  const char* home = getenv("HOME");
  return absl::StrCat(home == nullptr ? "" : home, "/.config/vllm");
}

}  // namespace

UsageStats UsageStatsOf(const std::function<const char*(const char*)>& getenv) {
  const std::string root = ConfigRoot(getenv);
  // VLLM_DO_NOT_TRACK wins over DO_NOT_TRACK when set at all (envs.py: the first of them set).
  const char* vllm_do_not_track = getenv("VLLM_DO_NOT_TRACK");
  const bool do_not_track = vllm_do_not_track != nullptr && *vllm_do_not_track != '\0'
                                ? IsOne(vllm_do_not_track)
                                : IsOne(getenv("DO_NOT_TRACK"));
  std::error_code error;
  const bool do_not_track_file = std::filesystem::exists(root + "/do_not_track", error);
  UsageStats stats;
  stats.enabled = !(do_not_track || IsOne(getenv("VLLM_NO_USAGE_STATS")) || do_not_track_file);
  stats.json_path = root + "/usage_stats.json";
  return stats;
}

absl::Status WriteUsageRecord(const std::string& path, const std::string& model) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  std::ofstream out(path, std::ios::app);
  if (!out) return absl::UnavailableError(absl::StrCat("cannot append to ", path));
  nlohmann::json record = {{"model_architecture", model},
                           {"vllm_version", "kvsim"},
                           {"context", "OPENAI_API_SERVER"},
                           {"log_time", absl::ToUnixNanos(absl::Now())},
                           {"source", "production"}};
  out << record.dump() << "\n";
  return out ? absl::OkStatus() : absl::UnavailableError(absl::StrCat("cannot write ", path));
}

}  // namespace kvbench::sim
