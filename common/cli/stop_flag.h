#pragma once

#include <atomic>

namespace kvbench {

// For command-line tools that stop cleanly on Ctrl-C (kv-runner, kvctl run): installs
// SIGINT/SIGTERM handlers that only raise a process-wide lock-free flag, and returns that flag.
// The tool polls it (or hands it to what it runs) and winds down, still writing its output.
// Idempotent.
std::atomic<bool>* InstallStopFlag();

}  // namespace kvbench
