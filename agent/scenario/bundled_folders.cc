#include "agent/scenario/bundled_folders.h"

#include <sys/stat.h>

#include <cstdlib>
#include <vector>

namespace kvbench::agent {
namespace {

bool IsDir(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// The first existing folder of `candidates`, or "" when none exists.
std::string FirstDir(const std::vector<std::string>& candidates) {
  for (const std::string& candidate : candidates) {
    if (IsDir(candidate)) return candidate;
  }
  return "";
}

}  // namespace

BundledFolders::BundledFolders(std::string bin_dir) : bin_dir_(std::move(bin_dir)) {}

std::string BundledFolders::ProfilesDir() const {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("KV_PROFILES_DIR"); env != nullptr && *env != '\0') {
    candidates.push_back(env);
  }
  candidates.push_back(bin_dir_ + "/../share/kvbench/profiles");
  candidates.push_back(bin_dir_ + "/../../deploy/profiles");
  const std::string found = FirstDir(candidates);
  return found.empty() ? candidates.back() : found;
}

std::string BundledFolders::ExampleDatasetsDir() const {
  return FirstDir(
      {bin_dir_ + "/../share/kvbench/datasets", bin_dir_ + "/../../deploy/examples/datasets"});
}

}  // namespace kvbench::agent
