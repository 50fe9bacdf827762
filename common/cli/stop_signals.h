#pragma once

#include <initializer_list>

#include "common/sync/stop_source.h"

namespace kvbench {

// For command-line tools: a StopSource, living as long as the process, that any of `signals`
// requests (kvctl and kv-runner: SIGINT and SIGTERM; kv-runner's go: SIGUSR1). The handler only
// writes the signal's number to a pipe (async-signal-safe); one thread reads the pipe and calls
// RequestStop, so waits on the source wake at once and its callbacks run on an ordinary thread.
// Call before the signals can arrive. The same set again returns the same source; a signal
// already given to another source keeps it.
StopSource* StopOnSignals(std::initializer_list<int> signals);

}  // namespace kvbench
