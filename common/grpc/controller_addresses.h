#pragma once

// The controllers a client may dial ("a:7070,b:7070": KV_CONTROLLER, an agent's
// controller_address) and which one it dials now. Controllers sharing a PostgreSQL store lead one
// at a time; the others are standbys that refuse writes with UNAVAILABLE naming the leader
// (common/grpc/leader_hint.h). After such a refusal, or a controller that cannot be reached, the
// client moves on: to the leader named, else to the next address in the list. Not thread-safe:
// one owner moves it.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench {

class ControllerAddresses {
 public:
  // Comma-separated, blanks around entries ignored. INVALID_ARGUMENT for an empty list or entry,
  // or an address given twice.
  static absl::StatusOr<ControllerAddresses> Parse(absl::string_view list);

  const std::string& current() const { return addresses_[current_]; }
  const std::vector<std::string>& all() const { return addresses_; }
  size_t size() const { return addresses_.size(); }

  // After a call to current() failed with `failure`: the leader it names becomes current (added
  // at the end when it is not in the list: a leader may advertise a name the list spells
  // otherwise), else the next address does. True when the move completes a round of the list
  // without a leader named: every controller was tried and none leads now, so the caller should
  // pause before the next round (a standby takes over within a lease).
  bool MoveOn(const absl::Status& failure);
  // A call to current() succeeded: the round starts again.
  void Succeeded() { misses_ = 0; }

 private:
  explicit ControllerAddresses(std::vector<std::string> addresses)
      : addresses_(std::move(addresses)) {}

  std::vector<std::string> addresses_;
  size_t current_ = 0;
  size_t misses_ = 0;  // addresses tried in a row without a leader named
};

}  // namespace kvbench
