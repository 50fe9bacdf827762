#pragma once

// This controller's hold on the store's leader lease (controller/store/leadership.h), when the
// store is shared (PostgreSQL): at start it waits as a standby until the lease is free or lapsed
// and takes it (before the job manager reads the store: a standby loads what the last leader
// wrote); while serving it renews the lease on the loop every third of its length; at a clean stop
// it steps down so a standby takes over at once. When a renewal finds the term moved on (this
// process was paused past its lease and another took over) it calls `on_lost`: the process must
// stop, and the fence has already kept it from writing anything since.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "common/time/sleeper.h"
#include "controller/lease/leader_view.h"
#include "controller/store/leadership.h"

namespace kvbench::controller {

struct ControllerLeaseOptions {
  std::string holder;   // "kv-controller pid 4242 on node-a"
  std::string address;  // host:port to name as the leader's; may be completed at StartRenewing
  absl::Duration lease = absl::Seconds(10);
};

class ControllerLease {
 public:
  // Blocks until this process leads, trying every quarter of the lease and logging who leads
  // meanwhile (once per leader). A database that cannot be reached is logged and tried again;
  // only a store error that retrying cannot fix (a refused login) is returned.
  // Each read of the lease is published to `leader_view` (when not null): a standby's services tell
  // clients where the leader is.
  static absl::StatusOr<std::unique_ptr<ControllerLease>> Acquire(
      Leadership* leadership, ControllerLeaseOptions options, Sleeper* sleeper,
      LeaderView* leader_view = nullptr);
  // Stops renewing and steps down if still leading.
  ~ControllerLease();

  // Renews on `executor` every third of the lease, naming `address` (the bound one) as the
  // leader's; `on_lost` runs on the executor once, with the store's message, when the lease
  // is gone: another took it, or no renewal has succeeded for a whole lease (the database out
  // of reach: a standby may lead by now, so this process stops acting on what it cannot prove,
  // webhooks and agents' assignments included). `clock` times the renewals.
  void StartRenewing(Executor* executor, Clock* clock, const std::string& address,
                     std::function<void(const absl::Status&)> on_lost);
  // Stops renewing. On the executor's thread.
  void StopRenewing();
  // Ends the lease now (after StopRenewing): the store call only, so any thread.
  void StepDown();
  int64_t term() const { return leadership_.term(); }

 private:
  ControllerLease(Leadership* leadership, ControllerLeaseOptions options)
      : leadership_(*leadership), options_(std::move(options)) {}
  void Renew();

  Leadership& leadership_;
  ControllerLeaseOptions options_;
  Executor* executor_ = nullptr;
  Clock* clock_ = nullptr;
  absl::Duration renewed_at_;  // monotonic start of the last renewal that succeeded
  TaskId renew_task_;
  std::function<void(const absl::Status&)> on_lost_;
};

}  // namespace kvbench::controller
