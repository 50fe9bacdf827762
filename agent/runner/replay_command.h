#pragma once

#include <atomic>

#include "absl/status/status.h"
#include "agent/runner/runner_options.h"
#include "common/sync/stop_source.h"

namespace kvbench::runner {

// kv-runner's replay: validates `options`, loads and chunks the dataset, warms up, replays, and
// writes --output (as requests finish) and --summary (at the end, also after a stop).
// INVALID_ARGUMENT for bad flags, FAILED_PRECONDITION for zero virtual users, UNAVAILABLE when
// warmup fails, CANCELLED when `stop` cut the replay short (output still complete). With
// --ready-file, `go` (InstallGoSignal) opens the gate before the clock starts.
absl::Status RunReplayCommand(const RunnerOptions& options, StopSource* stop,
                              StopSource* go = nullptr);

}  // namespace kvbench::runner
