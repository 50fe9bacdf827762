#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::agent {

// A process of the scenario, as the watchdog names it.
struct WatchedProcess {
  std::string name;  // "replica-1", "cache-server", "caddy", "kv-runner"
  int pid = 0;
};

// The state /proc gives a process ("running", "sleeping", "stopped", "zombie", "disk sleep",
// "gone" when it no longer exists), for messages that must say which process stalled.
std::string ProcessState(int pid);

// Decides when a replay must end although kv-runner still runs: without it, a replay
// whose cache server died, or whose replica hung (SIGSTOP, a wedged GPU), would run on without
// error until someone cancelled it. Two rules:
//   - the cache server of an offload tier exited: the tier under test is gone, the scenario
//     fails at once (FAILED_PRECONDITION);
//   - no progress (a completed request, the warm-up gate opening) for `progress_timeout`:
//     DEADLINE_EXCEEDED naming the stopped or zombie processes, or all of them when none is.
// Pure but for ProcessState; times are the caller's monotonic clock. Not thread-safe.
class ReplayWatchdog {
 public:
  // `cache_server` is the cache server's child name ("" for the GPU tier, which has none).
  ReplayWatchdog(absl::Duration progress_timeout, absl::Duration now, v1::Tier tier,
                 std::string cache_server);

  // A request completed, or the gate opened: the stall clock starts again.
  void Progressed(absl::Duration now);
  // A supervised child exited during the replay; `exit` is "<name> <how>" as the supervisor
  // reports it ("cache-server killed by signal 9").
  void ChildExited(const std::string& exit);
  // The failure once decided (it never changes after), checking the stall clock; `processes`
  // are the scenario's processes now, for the message.
  const std::optional<absl::Status>& Check(absl::Duration now,
                                           const std::vector<WatchedProcess>& processes);
  const std::optional<absl::Status>& failure() const { return failure_; }

 private:
  const absl::Duration progress_timeout_;
  const v1::Tier tier_;
  const std::string cache_server_;
  absl::Duration last_progress_;
  std::optional<absl::Status> failure_;
};

}  // namespace kvbench::agent
