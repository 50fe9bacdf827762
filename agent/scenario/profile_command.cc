#include "agent/scenario/profile_command.h"

#include "absl/strings/str_cat.h"

namespace kvbench::agent {

absl::StatusOr<std::vector<std::string>> ResolveProfileCommand(const ProgramResolver& programs,
                                                               const v1::Profile& profile) {
  std::vector<std::string> command(profile.command().begin(), profile.command().end());
  absl::StatusOr<std::string> program = programs.Resolve(command.front());
  if (!program.ok()) {
    return absl::NotFoundError(
        absl::StrCat("profile ", profile.name(), ": ", program.status().message()));
  }
  command.front() = *program;
  return command;
}

std::vector<std::string> WithResolvedCommand(const std::vector<std::string>& command,
                                             const std::vector<std::string>& argv,
                                             size_t profile_words) {
  std::vector<std::string> out = command;
  out.insert(out.end(), argv.begin() + static_cast<long>(profile_words), argv.end());
  return out;
}

}  // namespace kvbench::agent
