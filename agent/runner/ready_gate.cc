#include "agent/runner/ready_gate.h"

#include <signal.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"

namespace kvbench::runner {
namespace {

std::atomic<bool> g_go{false};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler needs a lock-free flag");

void OnGoSignal(int) { g_go.store(true); }

// How often AwaitGo looks at the flags (a signal handler only sets them).
constexpr std::chrono::milliseconds kGoPollPeriod(5);

}  // namespace

void InstallGoSignal() {
  struct sigaction action {};
  action.sa_handler = OnGoSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGUSR1, &action, nullptr);
}

absl::Status AwaitGo(const std::string& path, const std::atomic<bool>* stop) {
  {
    std::ofstream ready(path, std::ios::trunc);
    if (!ready) return absl::InternalError(absl::StrCat("cannot create --ready-file ", path));
  }
  while (!g_go.load()) {
    if (stop->load()) return absl::CancelledError("stopped while waiting for SIGUSR1");
    std::this_thread::sleep_for(kGoPollPeriod);
  }
  return absl::OkStatus();
}

}  // namespace kvbench::runner
