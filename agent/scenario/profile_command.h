#pragma once

// A profile's command line made runnable: its program resolved, the rendered arguments after it.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/scenario/program_resolver.h"
#include "kvbench/v1/profile.pb.h"

namespace kvbench::agent {

// The profile's command with its program (command[0]) resolved; NOT_FOUND naming the profile.
absl::StatusOr<std::vector<std::string>> ResolveProfileCommand(const ProgramResolver& programs,
                                                               const v1::Profile& profile);

// `argv` (rendered from the profile, its first `profile_words` words being the profile's own
// command) with those words replaced by the resolved `command`.
std::vector<std::string> WithResolvedCommand(const std::vector<std::string>& command,
                                             const std::vector<std::string>& argv,
                                             size_t profile_words);

}  // namespace kvbench::agent
