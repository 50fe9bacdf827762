#include "agent/scenario/program_resolver.h"

#include <unistd.h>

#include <cstdlib>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kvbench::agent {
namespace {

bool IsExecutable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

}  // namespace

ProgramResolver::ProgramResolver(std::string bin_dir, std::optional<std::string> search_path)
    : bin_dir_(std::move(bin_dir)), search_path_(std::move(search_path)) {}

std::string ProgramResolver::SelfBinDir() {
  char buffer[4096];
  const ssize_t length = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (length <= 0) return "";
  std::string path(buffer, static_cast<size_t>(length));
  return path.substr(0, path.rfind('/'));
}

absl::StatusOr<std::string> ProgramResolver::Resolve(const std::string& program) const {
  if (absl::StrContains(program, '/')) {
    if (IsExecutable(program)) return program;
    return absl::NotFoundError(absl::StrCat(program, " is not an executable file"));
  }
  if (!bin_dir_.empty() && IsExecutable(absl::StrCat(bin_dir_, "/", program))) {
    return absl::StrCat(bin_dir_, "/", program);
  }
  const char* env_path = std::getenv("PATH");
  const std::string path = search_path_.value_or(env_path == nullptr ? "" : env_path);
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", program);
    if (IsExecutable(candidate)) return candidate;
  }
  return absl::NotFoundError(
      absl::StrCat(program, " not found",
                   bin_dir_.empty() ? "" : absl::StrCat(" next to ", bin_dir_, " or"), " on PATH"));
}

}  // namespace kvbench::agent
