#pragma once

#include <string>

#include "absl/time/time.h"
#include "agent/release/program_release.h"
#include "common/process/process_launcher.h"

namespace kvbench::agent::release {

// A ProbeRunner over the ProcessLauncher seam: stdout and stderr go to files in `scratch_dir`
// (which must exist; removed once read). `launcher` is not owned and must outlive the runner.
ProbeRunner LauncherProbeRunner(ProcessLauncher* launcher, std::string scratch_dir);

}  // namespace kvbench::agent::release
