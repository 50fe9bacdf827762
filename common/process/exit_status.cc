#include <signal.h>
#include <string.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "common/process/process_launcher.h"

namespace kvbench {
namespace {

// "SIGKILL", "SIGRTMIN+3", or "" for a number that names no signal.
std::string SignalName(int signal) {
  if (const char* abbrev = ::sigabbrev_np(signal); abbrev != nullptr) {
    return absl::StrCat("SIG", abbrev);
  }
  if (signal >= SIGRTMIN && signal <= SIGRTMAX) return absl::StrCat("SIGRTMIN+", signal - SIGRTMIN);
  return "";
}

}  // namespace

std::string ExitStatus::ToString() const {
  if (!signaled) return absl::StrCat("exited with code ", code);
  const std::string name = SignalName(signal);
  if (name.empty()) return absl::StrCat("killed by signal ", signal);
  return absl::StrCat("killed by signal ", signal, " (", name, ")");
}

}  // namespace kvbench
