#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/process/process_launcher.h"

namespace kvbench {

// After SIGKILL, how long Stop() and the destructor wait for the leader to be reaped and the
// group to empty before giving up (only a process stuck in uninterruptible sleep takes longer).
inline constexpr absl::Duration kProcessKillTimeout = absl::Seconds(10);
// LogTail() reads at most this many bytes back from the end of the log file.
inline constexpr size_t kLogTailMaxBytes = 1 << 20;

// A child started by PosixProcessLauncher. It leads its own process group (pgid == pid) and is
// watched through a pidfd, so Wait() sleeps in poll(2) until the leader exits.
//
// Thread-safety: none. One Process is used from one thread at a time (the owner's loop, or a
// worker it hands the process to); pid() and name() never change.
//
// Reaping: the leader is reaped with waitpid(pid). While stopping, members of the group that have
// become this process's children (orphans reparented to a subreaper) are reaped too. A group whose
// only remaining members are zombies of someone else counts as gone: they no longer run.
// Nothing else in the process may reap the leader (waitpid(-1), SIGCHLD set to SIG_IGN); if
// something does, its exit status is lost: it is reported as exit code -1 and logged as an error.
//
// Signals go to the group with kill(-pgid). Once the leader is reaped and its pid has been seen
// in use by another process, the pgid may name someone else's group and is never signalled again.
class PosixProcess : public Process {
 public:
  // Takes ownership of `pidfd` (pidfd_open(pid)). `log_path` is the file LogTail() reads; "" for
  // none.
  PosixProcess(std::string name, pid_t pid, int pidfd, std::string log_path);
  // If the leader is still running, or its group still has live members: SIGKILL to the group,
  // then reaps them (bounded by kProcessKillTimeout).
  ~PosixProcess() override;
  PosixProcess(const PosixProcess&) = delete;
  PosixProcess& operator=(const PosixProcess&) = delete;

  int pid() const override { return pid_; }
  const std::string& name() const override { return name_; }

  std::optional<ExitStatus> TryWait() override;
  absl::StatusOr<ExitStatus> Wait(absl::Duration timeout) override;
  absl::Status Signal(int signal) override;
  absl::StatusOr<ExitStatus> Stop(absl::Duration grace) override;
  std::vector<std::string> LogTail(size_t max_lines) const override;

 private:
  // Reaps the leader if it has exited; true once it has been reaped.
  bool ReapLeader();
  void RecordExit(int wait_status);
  // Sleeps in poll(2) on the pidfd until the leader is reaped (true) or `deadline` passes (false).
  // Deadlines are on the monotonic clock, as returned by MonotonicNow() in the .cc.
  bool WaitLeaderUntil(absl::Duration deadline);
  // True once the leader is reaped and no live member of its group is left; reaps members that
  // are this process's children on the way.
  bool GroupGone();
  // Until GroupGone() or `deadline`: sleeps in poll(2) on pidfds opened for the group's live
  // members (found in /proc), waking when one of them exits.
  bool WaitGroupGoneUntil(absl::Duration deadline);
  // Reaps every exited member of the group that is a child of this process.
  void ReapGroupChildren();
  // True when the leader is reaped and its pid now belongs to another process: the pgid is no
  // longer ours (our group is necessarily empty then).
  bool PgidRecycled() const;
  // SIGKILL to the group, then waits up to kProcessKillTimeout for the leader and the group.
  absl::Status KillAndReap();

  const std::string name_;
  const pid_t pid_;  // also the process group id
  const int pidfd_;
  const std::string log_path_;
  std::optional<ExitStatus> exit_status_;  // set once the leader is reaped
  bool group_gone_ = false;                // never signal or wait on the pgid again
};

}  // namespace kvbench
