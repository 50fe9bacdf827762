#include "controller/lease/leader_view.h"

#include "absl/strings/str_cat.h"

namespace kvbench::controller {

absl::Status LeaderView::Refusal(absl::string_view method) const {
  const LeaderRecord leader = Get();
  const std::string prefix =
      absl::StrCat("this kv-controller is a standby: ", method, " goes to the leader");
  if (leader.term == 0) {
    return absl::UnavailableError(absl::StrCat(prefix, ", and none has led yet"));
  }
  const std::string who =
      absl::StrCat(leader.holder, " at ", leader.address, " (term ", leader.term, ")");
  if (leader.expired) {
    return absl::UnavailableError(
        absl::StrCat(prefix, ", and none leads now: the last, ", who,
                     ", let its lease lapse; a standby takes over within a lease"));
  }
  return absl::UnavailableError(absl::StrCat(prefix, ", ", who));
}

}  // namespace kvbench::controller
