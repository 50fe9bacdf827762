#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "common/process/process_launcher.h"

namespace kvbench {

// Starts children with fork(2) + execve(2). Each child:
//   - leads its own process group (so PosixProcess can signal everything it spawns);
//   - gets SIGTERM when the thread that launched it ends (PR_SET_PDEATHSIG), above all when the
//     whole parent dies, even by SIGKILL: nothing of an agent or `kvctl run` outlives it.
//     Launch from a thread that outlives the child (the scenario's own thread);
//     grandchildren that ignore it are left to the pid-file sweep at the next start;
//   - starts with an empty signal mask and default dispositions for SIGTERM, SIGINT, SIGHUP,
//     SIGPIPE, SIGCHLD and SIGQUIT, whatever the parent ignores or blocks;
//   - reads stdin from /dev/null, appends stdout and stderr to the spec's files (opened by the
//     parent, so an unwritable log is reported as such), and inherits no other descriptor;
//   - runs in spec.working_dir with the parent's environment plus spec.env (or spec.env alone).
// A bare program name (no '/') is looked up on the parent's PATH, not on spec.env's. A program
// that cannot be executed is NOT_FOUND naming it (the child reports exec's errno over a pipe).
// Logs one line per launch: `process started name=… pid=… argv0=…`.
//
// Thread-safe: Launch may be called from any thread.
class PosixProcessLauncher : public ProcessLauncher {
 public:
  absl::StatusOr<std::unique_ptr<Process>> Launch(const ProcessSpec& spec) override;
};

}  // namespace kvbench
