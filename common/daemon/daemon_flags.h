#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "common/loop/event_loop.h"

namespace kvbench {

// The flags every daemon takes (STYLE.md rule 17): --config, --log_level, --validate_config.
struct DaemonFlags {
  std::string config_path;
  std::string log_level = "info";
  bool validate_config = false;
};

void AddDaemonFlags(CLI::App* app, DaemonFlags* flags);

// Applies --log_level; INVALID_ARGUMENT for an unknown level.
absl::Status ApplyLogLevel(const DaemonFlags& flags);

// From now on SIGTERM and SIGINT stop `loop`: `on_signal` runs on the loop first (the owner's
// orderly shutdown), then the loop stops. A signal that comes before the loop runs waits for it
// (a daemon started and stopped at once still shuts down in order and exits 0). Call it before
// the daemon says it is ready.
void StopOnTerminate(EventLoop* loop, const std::function<void(int)>& on_signal);

// StopOnTerminate, then runs `loop` until it stops.
void RunUntilTerminated(EventLoop* loop, const std::function<void(int)>& on_signal);

}  // namespace kvbench
