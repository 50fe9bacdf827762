#pragma once

// What a standby knows of the leader, for its gRPC services to tell clients: written by
// ControllerLease::Acquire each time it reads the lease, read by the standby's services on gRPC's
// threads.

#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "controller/store/leadership.h"

namespace kvbench::controller {

class LeaderView {
 public:
  void Set(const LeaderRecord& leader) {
    std::lock_guard<std::mutex> lock(mu_);
    leader_ = leader;
  }
  LeaderRecord Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return leader_;
  }
  // Where a client should go now: the leader's address while its lease holds, else "".
  std::string LeaderAddress() const {
    std::lock_guard<std::mutex> lock(mu_);
    return leader_.expired ? "" : leader_.address;
  }
  // UNAVAILABLE (nothing was done: the call may go to the leader as it is), naming the leader or
  // saying none leads now.
  absl::Status Refusal(absl::string_view method) const;

 private:
  mutable std::mutex mu_;
  LeaderRecord leader_;
};

}  // namespace kvbench::controller
