#include "common/cli/stop_flag.h"

#include <signal.h>

namespace kvbench {
namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler needs a lock-free flag");

void OnStopSignal(int) { g_stop.store(true); }

}  // namespace

std::atomic<bool>* InstallStopFlag() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return &g_stop;
}

}  // namespace kvbench
