#include "common/grpc/controller_addresses.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/grpc/leader_hint.h"

namespace kvbench {

absl::StatusOr<ControllerAddresses> ControllerAddresses::Parse(absl::string_view list) {
  std::vector<std::string> addresses;
  for (absl::string_view entry : absl::StrSplit(list, ',')) {
    entry = absl::StripAsciiWhitespace(entry);
    if (entry.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("controller addresses \"", list, "\" have an empty entry"));
    }
    if (std::find(addresses.begin(), addresses.end(), entry) != addresses.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("controller addresses \"", list, "\" name ", entry, " twice"));
    }
    addresses.emplace_back(entry);
  }
  return ControllerAddresses(std::move(addresses));
}

bool ControllerAddresses::MoveOn(const absl::Status& failure) {
  const std::string leader = LeaderHint(failure);
  if (!leader.empty() && leader != current()) {
    auto it = std::find(addresses_.begin(), addresses_.end(), leader);
    if (it == addresses_.end()) it = addresses_.insert(addresses_.end(), leader);
    current_ = static_cast<size_t>(it - addresses_.begin());
    misses_ = 0;
    return false;
  }
  current_ = (current_ + 1) % addresses_.size();
  if (++misses_ < addresses_.size()) return false;
  misses_ = 0;
  return true;
}

}  // namespace kvbench
