#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/process/process_launcher.h"

namespace kvbench::testing {

// A child that never runs: the test decides when and how it ends. Deterministic and timeless:
// Wait() on a running fake returns DEADLINE_EXCEEDED at once, and Stop() returns at once with
// "killed by signal 15", or "killed by signal 9" after IgnoreTerm(true).
// Signals: SIGKILL ends it (killed by 9), SIGTERM ends it (killed by 15) unless it ignores TERM,
// any other signal is only recorded. Destroying the handle the launcher returned while the fake
// still runs ends it with SIGKILL, as the real Process does. Thread-safe.
class FakeProcess : public Process {
 public:
  FakeProcess(ProcessSpec spec, int pid);

  int pid() const override { return pid_; }
  const std::string& name() const override { return spec_.name; }
  std::optional<ExitStatus> TryWait() override;
  absl::StatusOr<ExitStatus> Wait(absl::Duration timeout) override;
  absl::Status Signal(int signal) override;
  absl::StatusOr<ExitStatus> Stop(absl::Duration grace) override;
  std::vector<std::string> LogTail(size_t max_lines) const override;

  // --- test controls
  // Ends the child with `status` (an exit code or a signal); no effect once it has ended.
  void Exit(ExitStatus status);
  // Whether SIGTERM is ignored (so Stop() ends in SIGKILL).
  void IgnoreTerm(bool ignore);
  // The lines LogTail() returns the last of.
  void SetLogTail(std::vector<std::string> lines);
  // Makes every later Stop() fail with `status` and leave the child running (OK: Stop works).
  void SetStopError(absl::Status status);

  // --- observations
  const ProcessSpec& spec() const { return spec_; }
  bool running() const;
  std::optional<ExitStatus> exit_status() const;
  // Every signal sent (by Signal, Stop or the handle's destruction), in order, even after the
  // child ended; Signal(0) probes are not recorded.
  std::vector<int> signals() const;
  // The grace of each Stop() call, in order.
  std::vector<absl::Duration> stop_graces() const;
  // Whether the code under test has destroyed the handle Launch() gave it.
  bool released() const;

  // Called by the launcher's handle when its owner destroys it.
  void Release();

 private:
  void SignalLocked(int signal);

  const ProcessSpec spec_;
  const int pid_;
  mutable std::mutex mu_;
  std::optional<ExitStatus> exit_status_;
  bool ignore_term_ = false;
  bool released_ = false;
  absl::Status stop_error_;
  std::vector<std::string> log_tail_;
  std::vector<int> signals_;
  std::vector<absl::Duration> stop_graces_;
};

// Records every ProcessSpec it is asked to launch and hands out FakeProcesses, scripted per
// program (argv[0]). The test keeps the FakeProcess (processes(), last_process()) while the code
// under test owns the Process handle. Like the real launcher, an empty argv is INVALID_ARGUMENT.
// Fake pids count up from kFirstPid. Thread-safe.
class FakeProcessLauncher : public ProcessLauncher {
 public:
  static constexpr int kFirstPid = 10000;

  // What happens on every launch of one program.
  struct Program {
    absl::Status launch_error;                 // not OK: Launch() fails with it
    std::optional<ExitStatus> exit_on_launch;  // the child has already ended when Launch returns
    bool ignore_term = false;                  // IgnoreTerm(true) from the start
    std::vector<std::string> log_tail;         // SetLogTail() from the start
  };

  absl::StatusOr<std::unique_ptr<Process>> Launch(const ProcessSpec& spec) override;

  void SetProgram(const std::string& argv0, Program program);
  // Shorthand: launches of `argv0` fail with `status` (OK: they succeed again).
  void SetLaunchError(const std::string& argv0, absl::Status status);

  // Every spec passed to Launch(), failed launches included, in order.
  std::vector<ProcessSpec> launched() const;
  // Every process started, in order.
  std::vector<std::shared_ptr<FakeProcess>> processes() const;
  // The latest process started (nullptr: none), or the latest one with spec.name == `name`.
  std::shared_ptr<FakeProcess> last_process() const;
  std::shared_ptr<FakeProcess> last_process(const std::string& name) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, Program> programs_;
  std::vector<ProcessSpec> launched_;
  std::vector<std::shared_ptr<FakeProcess>> processes_;
  int next_pid_ = kFirstPid;
};

}  // namespace kvbench::testing
