#include "agent/scenario/model_roots.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kvbench::agent {
namespace {

namespace fs = std::filesystem;

// `path` resolved: symlinks followed where they exist, "." and ".." folded.
fs::path Resolved(const std::string& path) {
  std::error_code error;
  fs::path resolved = fs::weakly_canonical(path, error);
  return error ? fs::path(path).lexically_normal() : resolved;
}

bool IsUnder(const fs::path& path, const fs::path& root) {
  const fs::path relative = path.lexically_relative(root);
  return !relative.empty() && relative != "." && *relative.begin() != ".." &&
         relative.is_relative();
}

}  // namespace

absl::Status CheckModelUnderRoots(const std::string& model, const std::vector<std::string>& roots) {
  if (!absl::StartsWith(model, "/")) return absl::OkStatus();
  const fs::path resolved = Resolved(model);
  for (const std::string& root : roots) {
    if (IsUnder(resolved, Resolved(root))) return absl::OkStatus();
  }
  if (roots.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("model ", model,
                     " is a path, and this agent takes model ids only (its model_roots is empty; "
                     "kvctl run: --model-root)"));
  }
  return absl::FailedPreconditionError(absl::StrCat("model ", model,
                                                    " is not under this agent's model_roots (",
                                                    absl::StrJoin(roots, ", "), ")"));
}

}  // namespace kvbench::agent
