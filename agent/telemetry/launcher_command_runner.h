#pragma once

#include <string>

#include "absl/time/time.h"
#include "agent/telemetry/command_runner.h"
#include "common/process/process_launcher.h"

namespace kvbench::telemetry {

// How long a telemetry command (amd-smi, rocm-smi) may run before it is stopped.
inline constexpr absl::Duration kDefaultCommandTimeout = absl::Seconds(10);
// After the timeout, how long SIGTERM has to end it before SIGKILL.
inline constexpr absl::Duration kCommandStopGrace = absl::Seconds(1);
// Lines of the command's stderr quoted in the error when it fails.
inline constexpr size_t kCommandErrorTailLines = 5;

// A CommandRunner over the ProcessLauncher seam (STYLE.md rule 6). The child's stdout and stderr
// go to files in `scratch_dir` (which must exist; named after the program and a counter, removed
// once read), it gets up to `timeout` to finish, and is then stopped (TERM, kCommandStopGrace,
// KILL). `launcher` is not owned and must outlive the runner. Thread-safe when the launcher is.
CommandRunner LauncherCommandRunner(ProcessLauncher* launcher, std::string scratch_dir,
                                    absl::Duration timeout = kDefaultCommandTimeout);

}  // namespace kvbench::telemetry
