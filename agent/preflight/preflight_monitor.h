#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "agent/preflight/preflight.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench::agent::preflight {

// How often an idle agent re-runs the cheap checks: the scheduler learns within a minute that an
// idle node broke.
inline constexpr absl::Duration kRecheckPeriod = absl::Minutes(1);

// The agent's latest preflight: every check of the start, each cheap one replaced by its latest
// re-run. Re-runs happen on the monitor's own thread (they touch the disk and bind sockets; the
// agent's loop must not block), one at a time; heartbeats read NotPassing() from the link's
// thread. A re-run whose `still_idle` answers false when it ends is dropped (a scenario that
// started meanwhile fills the NVMe pool and holds ports).
class PreflightMonitor {
 public:
  // `preflight` is borrowed and must outlive the monitor; `at_start` is its RunAll's checks.
  PreflightMonitor(const Preflight* preflight, std::vector<v1::PreflightCheck> at_start);
  // Stop().
  ~PreflightMonitor();
  PreflightMonitor(const PreflightMonitor&) = delete;
  PreflightMonitor& operator=(const PreflightMonitor&) = delete;

  // Re-runs the cheap checks unless a re-run is under way. Any thread; a no-op once stopped.
  void RequestRecheck(std::function<bool()> still_idle);
  // Waits for a re-run under way, then ends the thread. Idempotent.
  void Stop();

  // Thread-safe.
  std::vector<v1::PreflightCheck> Latest() const;
  // The checks that do not pass now (WARN and FAIL): what a heartbeat carries.
  std::vector<v1::PreflightCheck> NotPassing() const;
  int rechecks() const;  // re-runs whose results were taken

 private:
  void Run();
  // Replaces the checks of `fresh`'s names; logs what changed. Under mu_.
  void MergeLocked(const std::vector<v1::PreflightCheck>& fresh);

  const Preflight* const preflight_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::vector<v1::PreflightCheck> latest_;  // guarded by mu_
  std::function<bool()> pending_;           // guarded by mu_; a requested re-run's still_idle
  bool running_ = false;                    // guarded by mu_
  bool stopped_ = false;                    // guarded by mu_
  int rechecks_ = 0;                        // guarded by mu_
  std::thread thread_;                      // started by the first request
};

}  // namespace kvbench::agent::preflight
