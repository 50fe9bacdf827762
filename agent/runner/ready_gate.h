#pragma once

#include <string>

#include "absl/status/status.h"
#include "common/sync/stop_source.h"

namespace kvbench::runner {

// kv-runner's --ready-file handshake (the warm-up gate): the agent's "before" scrape
// must follow the runner's warm-up requests and prompt counting, so that before→after counter
// deltas hold the replay's requests only.
//   InstallGoSignal() at start-up (before anything could send SIGUSR1) gives the source SIGUSR1
//   requests; then, just before the clock starts, AwaitGo(path, go, stop) creates `path` (empty)
//   and blocks until `go` (OK) or `stop` (CANCELLED) is requested, whichever comes first — woken
//   by the request itself, never by polling. INTERNAL naming the path when it cannot be created.
StopSource* InstallGoSignal();
absl::Status AwaitGo(const std::string& path, StopSource* go, StopSource* stop);

}  // namespace kvbench::runner
