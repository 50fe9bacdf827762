#include "agent/scenario/free_space.h"

#include <sys/statvfs.h>

#include <filesystem>
#include <system_error>

namespace kvbench::agent {

std::optional<int64_t> FreeBytesUnder(const std::string& dir) {
  std::error_code error;
  std::filesystem::path existing = dir;
  while (!std::filesystem::exists(existing, error) && existing.has_relative_path() &&
         existing.has_parent_path() && existing != existing.parent_path()) {
    existing = existing.parent_path();
  }
  struct statvfs info {};
  if (::statvfs(existing.c_str(), &info) != 0) return std::nullopt;
  return static_cast<int64_t>(info.f_bavail) * static_cast<int64_t>(info.f_frsize);
}

}  // namespace kvbench::agent
