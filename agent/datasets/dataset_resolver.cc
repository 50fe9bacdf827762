#include "agent/datasets/dataset_resolver.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace kvbench::datasets {
namespace {

bool Exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

// realpath(3), or "" when the path does not exist.
std::string RealPath(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr),
                                                       &std::free);
  return resolved ? std::string(resolved.get()) : std::string();
}

bool HasParentComponent(const std::string& path) {
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part == "..") return true;
  }
  return false;
}

}  // namespace

const std::vector<std::string>& KnownDatasetFiles(const std::string& code) {
  static const auto* known = new std::map<std::string, std::vector<std::string>>{
      {"tau2-bench-v1", {"tau2_airline_gpt-4.1_results.json"}},
      {"sammshen", {"tau2_airline_gpt-4.1_lmcache_format.jsonl"}},
      {"lmcache-agent-trace", {"lmcache-agent-trace/miniswe", "lmcache-agent-trace/magagent"}},
  };
  static const std::vector<std::string> none;
  auto it = known->find(code);
  return it == known->end() ? none : it->second;
}

DatasetResolver::DatasetResolver(std::vector<std::string> roots, bool allow_user_paths)
    : roots_(std::move(roots)), allow_user_paths_(allow_user_paths) {}

std::vector<std::string> DatasetResolver::Roots(const std::string& cache_dir,
                                                const std::string& mirror) {
  std::vector<std::string> roots;
  for (const std::string& root : {cache_dir, mirror}) {
    if (!root.empty()) roots.push_back(root);
  }
  const char* env = std::getenv(kDatasetMirrorEnv);
  if (env != nullptr && *env != '\0') roots.push_back(env);
  return roots;
}

absl::StatusOr<std::string> DatasetResolver::ResolveUnder(const std::string& root,
                                                          const std::string& path) const {
  const std::string candidate = absl::StrCat(root, "/", path);
  const std::string real = RealPath(candidate);
  if (real.empty()) return absl::NotFoundError(candidate);
  const std::string real_root = RealPath(root);
  if (real_root.empty() || !(real == real_root || absl::StartsWith(real, real_root + "/"))) {
    return absl::InvalidArgumentError(absl::StrCat("dataset.path \"", path, "\" resolves to ", real,
                                                   ", outside the dataset root ", root));
  }
  return real;
}

absl::StatusOr<std::string> DatasetResolver::Resolve(const v1::DatasetRef& ref) const {
  std::vector<std::string> wanted;
  if (!ref.path().empty()) {
    if (allow_user_paths_ && Exists(ref.path())) return RealPath(ref.path());
    if (absl::StartsWith(ref.path(), "/") || HasParentComponent(ref.path())) {
      return absl::InvalidArgumentError(
          absl::StrCat("dataset.path \"", ref.path(),
                       "\" must be relative to the agent's dataset directories, without \"..\""));
    }
    wanted.push_back(ref.path());
  } else {
    wanted = KnownDatasetFiles(ref.code());
    if (wanted.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("dataset \"", ref.code(), "\" has no known file: set dataset.path"));
    }
  }
  for (const std::string& path : wanted) {
    for (const std::string& root : roots_) {
      absl::StatusOr<std::string> found = ResolveUnder(root, path);
      if (found.ok() || found.status().code() != absl::StatusCode::kNotFound) return found;
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "dataset ", ref.code(), ": none of [", absl::StrJoin(wanted, ", "), "] found under [",
      absl::StrJoin(roots_, ", "), "] (set dataset_mirror or ", kDatasetMirrorEnv, ")"));
}

}  // namespace kvbench::datasets
