#pragma once

#include <atomic>

#include "absl/status/status.h"
#include "agent/runner/runner_options.h"

namespace kvbench::runner {

// kv-runner's replay: validates `options`, loads and chunks the dataset, warms up, replays, and
// writes --output (as requests finish) and --summary (at the end, also after a stop).
// INVALID_ARGUMENT for bad flags, FAILED_PRECONDITION for zero virtual users, UNAVAILABLE when
// warmup fails, CANCELLED when `stop` cut the replay short (output still complete).
absl::Status RunReplayCommand(const RunnerOptions& options, const std::atomic<bool>* stop);

}  // namespace kvbench::runner
