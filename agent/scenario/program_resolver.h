#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace kvbench::agent {

// Finds the program a profile names (STYLE.md: profiles decide what runs, never a job spec):
// a path with a '/' is taken as is; a bare name is looked up next to the agent's own binary
// first (kvsim-vllm, kvsim-lmcache, kv-runner ship together in build/bin), then on PATH.
class ProgramResolver {
 public:
  // `bin_dir`: the folder of the running binary ("" = PATH only). `search_path`: the PATH to
  // search ($PATH when unset).
  explicit ProgramResolver(std::string bin_dir,
                           std::optional<std::string> search_path = std::nullopt);
  // The folder of /proc/self/exe.
  static std::string SelfBinDir();

  // NOT_FOUND "<name> not found next to <bin_dir> or on PATH" when no executable file exists.
  absl::StatusOr<std::string> Resolve(const std::string& program) const;

 private:
  std::string bin_dir_;
  std::optional<std::string> search_path_;
};

}  // namespace kvbench::agent
