#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kvbench {

// How a child process ended.
struct ExitStatus {
  bool signaled = false;  // killed by `signal` rather than exiting with `code`
  int code = 0;
  int signal = 0;

  bool success() const { return !signaled && code == 0; }
  // "exited with code 3", "killed by signal 9 (SIGKILL)".
  std::string ToString() const;
  friend bool operator==(const ExitStatus& a, const ExitStatus& b) {
    return a.signaled == b.signaled && a.code == b.code && a.signal == b.signal;
  }
};

struct ProcessSpec {
  // Short name for logs and errors ("replica-0", "cache-server", "caddy").
  std::string name;
  // argv[0] is the program: a path, or a name looked up on PATH.
  std::vector<std::string> argv;
  // Variables set for the child on top of the inherited environment (or alone, see below).
  std::map<std::string, std::string> env;
  bool inherit_env = true;
  // Inherited variables the child must not see (removed before `env` is applied; a name in both
  // is INVALID_ARGUMENT).
  std::vector<std::string> unset_env;
  // Working directory of the child; empty = the parent's.
  std::string working_dir;
  // Files the child's stdout and stderr are appended to (created 0644 if missing). Empty stdout
  // = /dev/null; empty stderr = the stdout file.
  std::string stdout_path;
  std::string stderr_path;
};

// A running (or finished) child. It leads its own process group, so signals reach everything it
// spawned. Destroying a Process that is still running kills its whole group (SIGKILL) and reaps
// it: a child never outlives its owner by accident.
class Process {
 public:
  virtual ~Process() = default;

  virtual int pid() const = 0;
  virtual const std::string& name() const = 0;

  // The exit status if the child has exited (reaping it), without blocking.
  virtual std::optional<ExitStatus> TryWait() = 0;
  // Blocks until the child exits or `timeout` passes (DEADLINE_EXCEEDED). Does not kill it.
  virtual absl::StatusOr<ExitStatus> Wait(absl::Duration timeout) = 0;
  // Sends `signal` to the child's whole process group.
  virtual absl::Status Signal(int signal) = 0;
  // SIGTERM (then SIGCONT, so a stopped member acts on it) to the group, up to `grace` for the
  // group to exit, then SIGKILL to the group; returns once the leader is reaped and no member of
  // the group is left. The leader's exit status.
  virtual absl::StatusOr<ExitStatus> Stop(absl::Duration grace) = 0;
  // The last `max_lines` lines of the child's log (stderr file, else stdout file), for errors.
  virtual std::vector<std::string> LogTail(size_t max_lines) const = 0;
};

// Starts children (STYLE.md rule 6: below main.cc nothing forks directly).
// Implementations: PosixProcessLauncher; FakeProcessLauncher in tests/fakes.
class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;
  // INVALID_ARGUMENT for an empty argv; NOT_FOUND when the program does not exist or cannot be
  // executed; INTERNAL for other failures (naming the spec's name and the OS error).
  virtual absl::StatusOr<std::unique_ptr<Process>> Launch(const ProcessSpec& spec) = 0;
};

}  // namespace kvbench
