#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kvbench::telemetry {

// Runs a command to completion and returns what it wrote to stdout. Blocks the calling thread
// (call it off the event loop). Errors:
//   NOT_FOUND          the program is not installed (not on PATH)
//   DEADLINE_EXCEEDED  it ran too long and was stopped
//   UNAVAILABLE        it exited non-zero or was killed (the message says how, with the tail of
//                      its stderr)
// Implementations: LauncherCommandRunner (launcher_command_runner.h); tests pass lambdas.
using CommandRunner =
    std::function<absl::StatusOr<std::string>(const std::vector<std::string>& argv)>;

}  // namespace kvbench::telemetry
