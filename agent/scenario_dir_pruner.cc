#include "agent/scenario_dir_pruner.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include "common/log/logging.h"

namespace kvbench::agent {
namespace {

namespace fs = std::filesystem;

// The modification time of `path` (not following a symlink); nullopt when it cannot be read.
std::optional<absl::Time> ModifiedAt(const fs::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return std::nullopt;
  return absl::TimeFromTimespec(info.st_mtim);
}

// The newest modification time of `dir` and everything under it; nullopt when unreadable.
std::optional<absl::Time> NewestChange(const fs::path& dir) {
  std::optional<absl::Time> newest = ModifiedAt(dir);
  if (!newest.has_value()) return std::nullopt;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(dir, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const std::optional<absl::Time> changed = ModifiedAt(it->path());
    if (!changed.has_value()) return std::nullopt;
    newest = std::max(*newest, *changed);
  }
  if (error) return std::nullopt;
  return newest;
}

}  // namespace

int PruneScenarioDirs(const WorkDirLayout& layout, absl::Duration retention, absl::Time now,
                      const std::string& keep) {
  if (retention <= absl::ZeroDuration()) return 0;
  const fs::path kept = keep.empty() ? fs::path() : fs::path(keep).lexically_normal();
  std::error_code error;
  int removed = 0;
  std::vector<fs::path> jobs;
  for (const auto& job : fs::directory_iterator(layout.scenarios_dir(), error)) {
    if (job.is_directory(error)) jobs.push_back(job.path());
  }
  for (const fs::path& job : jobs) {
    std::vector<fs::path> attempts;
    for (const auto& attempt : fs::directory_iterator(job, error))
      attempts.push_back(attempt.path());
    for (const fs::path& attempt : attempts) {
      if (!kept.empty() && attempt.lexically_normal() == kept) continue;
      const std::optional<absl::Time> changed = NewestChange(attempt);
      if (!changed.has_value() || now - *changed < retention) continue;
      fs::remove_all(attempt, error);
      if (error) {
        KV_LOG(WARNING) << "cannot remove an expired scenario folder dir=" << attempt.string()
                        << " error=" << error.message();
        error.clear();
        continue;
      }
      ++removed;
    }
    if (fs::is_empty(job, error) && !error) fs::remove(job, error);
    error.clear();
  }
  return removed;
}

}  // namespace kvbench::agent
