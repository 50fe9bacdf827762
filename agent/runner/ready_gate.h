#pragma once

#include <atomic>
#include <string>

#include "absl/status/status.h"

namespace kvbench::runner {

// kv-runner's --ready-file handshake (the warm-up gate, issue #15): the agent's "before" scrape
// must follow the runner's warm-up requests and prompt counting, so that before→after counter
// deltas hold the replay's requests only.
//   InstallGoSignal() at start-up (before anything could send SIGUSR1), then, just before the
//   clock starts, AwaitGo(path, stop): creates `path` (empty), then waits until SIGUSR1 arrives
//   (OK) or `stop` is raised (CANCELLED). INTERNAL naming the path when it cannot be created.
void InstallGoSignal();
absl::Status AwaitGo(const std::string& path, const std::atomic<bool>* stop);

}  // namespace kvbench::runner
