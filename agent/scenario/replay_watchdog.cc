#include "agent/scenario/replay_watchdog.h"

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kvbench::agent {

std::string ProcessState(int pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string stat;
  if (pid <= 0 || !std::getline(in, stat)) return "gone";
  // "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return "unknown";
  switch (stat[close + 2]) {
    case 'R':
      return "running";
    case 'S':
      return "sleeping";
    case 'D':
      return "disk sleep";
    case 'T':
    case 't':
      return "stopped";
    case 'Z':
      return "zombie";
    case 'X':
      return "gone";
    default:
      return "unknown";
  }
}

ReplayWatchdog::ReplayWatchdog(absl::Duration progress_timeout, absl::Duration now, v1::Tier tier,
                               std::string cache_server)
    : progress_timeout_(progress_timeout),
      tier_(tier),
      cache_server_(std::move(cache_server)),
      last_progress_(now) {}

void ReplayWatchdog::Progressed(absl::Duration now) { last_progress_ = now; }

void ReplayWatchdog::ChildExited(const std::string& exit) {
  if (failure_.has_value() || cache_server_.empty() ||
      !absl::StartsWith(exit, absl::StrCat(cache_server_, " "))) {
    return;
  }
  failure_ = absl::FailedPreconditionError(
      absl::StrCat(exit, " during the replay: the ", v1::Tier_Name(tier_),
                   " tier under test is gone, so nothing after it measures that tier"));
}

const std::optional<absl::Status>& ReplayWatchdog::Check(
    absl::Duration now, const std::vector<WatchedProcess>& processes) {
  if (failure_.has_value() || progress_timeout_ <= absl::ZeroDuration() ||
      now - last_progress_ < progress_timeout_) {
    return failure_;
  }
  std::vector<std::string> stalled;
  std::vector<std::string> all;
  for (const WatchedProcess& process : processes) {
    const std::string state = ProcessState(process.pid);
    all.push_back(absl::StrCat(process.name, " (pid ", process.pid, ", ", state, ")"));
    if (state == "stopped" || state == "zombie") {
      stalled.push_back(absl::StrCat(process.name, " (pid ", process.pid, ") is ", state));
    }
  }
  const std::string which =
      stalled.empty() ? absl::StrCat("no process is stopped, a request hangs inside one of: ",
                                     absl::StrJoin(all, ", "))
                      : absl::StrJoin(stalled, ", ");
  failure_ = absl::DeadlineExceededError(absl::StrCat("no request completed for ",
                                                      absl::FormatDuration(progress_timeout_),
                                                      " (progress_timeout_s): ", which));
  return failure_;
}

}  // namespace kvbench::agent
