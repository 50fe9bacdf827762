#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/http/http_client.h"
#include "common/process/process_launcher.h"
#include "common/time/clock.h"
#include "common/time/sleeper.h"

namespace kvbench::agent {

// How the supervisor checks that a child is ready: an HTTP GET answered 200 (and, when
// `require_body`, with a non-empty body: Caddy's admin GET /config/).
struct ReadinessProbe {
  ReadinessProbe() = default;
  // NOLINTNEXTLINE(google-explicit-constructor): {url} and {url, require_body} read as the data.
  ReadinessProbe(std::string probe_url, bool body = false,
                 std::vector<std::string> alternatives = {})
      : url(std::move(probe_url)), require_body(body), alternative_urls(std::move(alternatives)) {}

  std::string url;
  bool require_body = false;
  // Tried in turn when `url` does not pass; ready when any passes (LMCache's health check moved
  // between releases: /healthcheck, /api/healthcheck).
  std::vector<std::string> alternative_urls;
};

// Owns the child processes of one scenario (STYLE.md rule 15): each in its own process group
// (ProcessLauncher), stdout+stderr appended to <log_dir>/<name>.log, a pid file
// <run_dir>/<name>.pid ("<pid>\n", the group id) while it lives, so an agent that restarts can
// kill what a crashed predecessor left (KillOrphans). Blocking calls; used from the scenario's
// own thread. Errors name the child and carry its last log lines.
class Supervisor {
 public:
  // Lines of a child's log quoted in errors.
  static constexpr size_t kLogTailLines = 20;
  // How often AwaitReady polls its probe (and the child's exit).
  static constexpr absl::Duration kProbePeriod = absl::Milliseconds(50);
  // Limit of one probe's HTTP exchange (connect included); a raised `cancelled` is noticed
  // within a period plus, at worst, this.
  static constexpr absl::Duration kProbeTimeout = absl::Seconds(1);
  // How long KillOrphans waits for the groups it killed to be gone.
  static constexpr absl::Duration kOrphanKillTimeout = absl::Seconds(10);

  // Borrowed seams must outlive the supervisor. `cancelled` (may be null) aborts waits. Waits
  // take their time from `clock` and pass it in `sleeper`.
  Supervisor(ProcessLauncher* launcher, HttpClient* http, Clock* clock, std::string log_dir,
             std::string run_dir, absl::Duration stop_grace, const std::atomic<bool>* cancelled,
             Sleeper* sleeper);
  // StopAll().
  ~Supervisor();

  // Called on the waiting thread at each probe period of AwaitReady and after each child StopAll
  // stops: a replica that loads its weights for minutes still lets its scenario say it is alive
  // (ScenarioDriver's keepalive). Set before the first wait.
  void SetWaitHook(std::function<void()> hook) { wait_hook_ = std::move(hook); }

  // Starts `argv` (env on top of the agent's, without the agent's `unset_env`) as `name`. NOT_FOUND
  // naming the program when it does not exist; ALREADY_EXISTS for a name in use (until Stop);
  // INVALID_ARGUMENT for a name that cannot be a file name; FAILED_PRECONDITION when log_dir or
  // run_dir cannot be created or the pid file cannot be written (the child is then stopped at
  // once).
  absl::Status Start(const std::string& name, const std::vector<std::string>& argv,
                     const std::map<std::string, std::string>& env,
                     const std::vector<std::string>& unset_env = {});

  // Waits until `probe` passes, probing every kProbePeriod of `clock` time (waiting in the
  // sleeper) until `deadline` has passed on it. FAILED_PRECONDITION "<name> exited with code 1
  // during start-up" when the child dies first; DEADLINE_EXCEEDED "<name> not ready after 30 s (GET
  // url: ...)"; CANCELLED when `cancelled` is raised. Each message ends with the child's last log
  // lines.
  absl::Status AwaitReady(const std::string& name, const ReadinessProbe& probe,
                          absl::Duration deadline);

  // Children that have exited since they started (reaped), with how: "replica-1 killed by
  // signal 9 (SIGKILL)". Non-blocking. Each exit is reported once; a stopped child is not.
  // A child's pid file is removed once it has exited and its group is empty (else by Stop).
  std::vector<std::string> ExitedChildren();

  // Stops one child: SIGTERM to its group, grace, SIGKILL; removes its pid file and forgets the
  // child (its name may be started again). NOT_FOUND for a name not started (or already stopped).
  // When the group cannot be ended, the error names the child and its pid file is kept.
  absl::Status Stop(const std::string& name);
  // Stops every child, in reverse start order (proxy, replicas, cache server). Idempotent.
  absl::Status StopAll();

  // The last lines (up to kLogTailLines) of a running or exited child's log; none once stopped.
  std::vector<std::string> LogTail(const std::string& name) const;
  std::vector<std::string> names() const;
  std::optional<int> pid(const std::string& name) const;

  // After an agent restart: for every <run_dir>/*.pid, SIGKILL the process group if it is still
  // alive, and remove the file. Returns how many groups were killed. Then waits (up to
  // kOrphanKillTimeout) for those groups to be gone, reaping members that are our children.
  // Never signals: a malformed file (logged, removed), a pid <= 1, this process's own group, or a
  // group whose leader started after the file was written (the pid was recycled, e.g. after a
  // reboot). Call it before this agent starts children into `run_dir`. The wait is measured on
  // `clock` and passed in `sleeper`.
  static int KillOrphans(const std::string& run_dir, Clock* clock, Sleeper* sleeper);

 private:
  struct Child {
    std::string name;
    std::unique_ptr<Process> process;
    std::optional<ExitStatus> exit;
    bool exit_reported = false;  // by ExitedChildren
  };

  // Both need mu_ held; nullptr for an unknown name.
  Child* Find(const std::string& name);
  const Child* Find(const std::string& name) const;
  std::string PidFile(const std::string& name) const;
  std::string LogPath(const std::string& name) const;
  // The child's exit if it has exited (reaping it, logging it and, once its group is empty,
  // removing its pid file). Needs mu_ held.
  std::optional<ExitStatus> PollExitLocked(Child& child);
  // NOT_FOUND for an unknown name, else PollExitLocked.
  absl::StatusOr<std::optional<ExitStatus>> PollExit(const std::string& name);
  // `message` followed by the last lines of the child's log.
  std::string WithLogTail(const std::string& name, const std::string& message) const;
  bool Cancelled() const;
  // Process::Stop, then removes the pid file; the error names the child.
  absl::Status StopChild(Child& child);

  ProcessLauncher* launcher_;
  HttpClient* http_;
  Clock* clock_;
  Sleeper* sleeper_;
  std::string log_dir_;
  std::string run_dir_;
  absl::Duration stop_grace_;
  const std::atomic<bool>* cancelled_;
  std::function<void()> wait_hook_;

  mutable std::mutex mu_;
  std::vector<Child> children_;  // guarded by mu_, in start order
};

}  // namespace kvbench::agent
