#include "agent/runner/ready_gate.h"

#include <signal.h>

#include <condition_variable>
#include <fstream>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "common/cli/stop_signals.h"
#include "common/sync/stop_callback.h"

namespace kvbench::runner {

StopSource* InstallGoSignal() { return StopOnSignals({SIGUSR1}); }

absl::Status AwaitGo(const std::string& path, StopSource* go, StopSource* stop) {
  {
    std::ofstream ready(path, std::ios::trunc);
    if (!ready) return absl::InternalError(absl::StrCat("cannot create --ready-file ", path));
  }
  std::mutex mu;
  std::condition_variable woken;
  auto wake = [&] {
    std::lock_guard<std::mutex> lock(mu);
    woken.notify_all();
  };
  StopCallback on_go(go, wake);
  StopCallback on_stop(stop, wake);
  std::unique_lock<std::mutex> lock(mu);
  woken.wait(lock, [&] { return go->stop_requested() || stop->stop_requested(); });
  if (!go->stop_requested()) return absl::CancelledError("stopped while waiting for SIGUSR1");
  return absl::OkStatus();
}

}  // namespace kvbench::runner
