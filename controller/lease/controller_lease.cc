#include "controller/lease/controller_lease.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log/logging.h"

namespace kvbench::controller {

absl::StatusOr<std::unique_ptr<ControllerLease>> ControllerLease::Acquire(
    Leadership* leadership, ControllerLeaseOptions options, Sleeper* sleeper,
    LeaderView* leader_view) {
  std::string last_seen;
  while (true) {
    LeaderRecord current;
    absl::StatusOr<bool> led =
        leadership->TryLead(options.holder, options.address, options.lease, &current);
    if (led.ok() && *led) {
      KV_LOG(INFO) << "leading term=" << current.term
                   << " lease_s=" << absl::ToDoubleSeconds(options.lease);
      return std::unique_ptr<ControllerLease>(new ControllerLease(leadership, std::move(options)));
    }
    if (!led.ok() && !absl::IsUnavailable(led.status())) return led.status();
    if (led.ok() && leader_view != nullptr) leader_view->Set(current);
    const std::string seen = led.ok() ? absl::StrCat(current.holder, " at ", current.address,
                                                     " (term ", current.term, ")")
                                      : std::string(led.status().message());
    if (seen != last_seen) {
      KV_LOG(INFO) << "standby: " << (led.ok() ? "the leader is " : "") << seen
                   << "; taking over when its lease lapses";
      last_seen = seen;
    }
    sleeper->SleepFor(options.lease / 4);
  }
}

ControllerLease::~ControllerLease() {
  StopRenewing();  // no renewal left on the loop pointing here
  StepDown();
}

void ControllerLease::StartRenewing(Executor* executor, Clock* clock, const std::string& address,
                                    std::function<void(const absl::Status&)> on_lost) {
  executor_ = executor;
  clock_ = clock;
  renewed_at_ = clock->Monotonic();  // Acquire took the lease just now
  if (!address.empty() && options_.address.empty()) options_.address = address;
  on_lost_ = std::move(on_lost);
  renew_task_ = executor->RunEvery("controller.lease", options_.lease / 3, [this] { Renew(); });
  Renew();  // names the bound address at once
}

void ControllerLease::Renew() {
  // The database's expiry is its clock at the renewal plus the lease, no earlier than this.
  const absl::Duration started = clock_->Monotonic();
  absl::Status renewed = leadership_.Renew(options_.lease, options_.address);
  if (renewed.ok()) {
    renewed_at_ = started;
    return;
  }
  if (absl::IsUnavailable(renewed)) {
    const absl::Duration unrenewed = clock_->Monotonic() - renewed_at_;
    if (unrenewed < options_.lease) {
      // The database is away: the lease may still be ours (the fence keeps any write safe); the
      // next renewal tells.
      KV_LOG(WARNING) << "lease not renewed: " << renewed.message();
      return;
    }
    renewed = absl::UnavailableError(
        absl::StrCat("the lease could not be renewed for ", absl::FormatDuration(unrenewed),
                     " (lease ", absl::FormatDuration(options_.lease), "): ", renewed.message()));
  }
  KV_LOG(ERROR) << "lost leadership: " << renewed.message() << "; stepping down";
  StopRenewing();
  if (on_lost_) {
    auto on_lost = std::move(on_lost_);
    on_lost_ = nullptr;
    on_lost(renewed);
  }
}

void ControllerLease::StopRenewing() {
  if (executor_ != nullptr && renew_task_.valid()) executor_->Cancel(renew_task_);
  renew_task_ = TaskId{};
}

void ControllerLease::StepDown() {
  if (leadership_.term() == 0) return;
  absl::Status ended = leadership_.StepDown();
  if (ended.ok()) {
    KV_LOG(INFO) << "stepped down: the lease is free for a standby";
  } else {
    KV_LOG(WARNING) << "stepping down: " << ended.message();
  }
}

}  // namespace kvbench::controller
