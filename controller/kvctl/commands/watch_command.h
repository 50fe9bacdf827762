#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/sync/stop_source.h"
#include "controller/client/controller_client.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/verdict_gate.h"

namespace kvbench::kvctl {

// A broken watch stream (UNAVAILABLE) is resumed after the last position seen, at most this many
// times in a row (the count restarts once events flow again), waiting kWatchInitialBackoff,
// doubling up to kWatchMaxBackoff.
inline constexpr int kWatchMaxResumes = 5;
inline constexpr absl::Duration kWatchInitialBackoff = absl::Milliseconds(200);
inline constexpr absl::Duration kWatchMaxBackoff = absl::Seconds(5);

struct WatchOptions {
  int max_resumes = kWatchMaxResumes;
  absl::Duration initial_backoff = kWatchInitialBackoff;
  absl::Duration max_backoff = kWatchMaxBackoff;
  // What a succeeded job's comparisons must be for exit 0 (--require-valid: all valid).
  VerdictGate gate = VerdictGate::kNoneInvalid;
};

// `kvctl watch JOB`, also the tail of `kvctl submit --watch`: prints progress until the job is
// terminal. OK when it SUCCEEDED, ABORTED when it FAILED, CANCELLED when it was cancelled (or
// a stop of `cancel`, may be null, was requested: the job goes on).
absl::Status WatchJobToEnd(client::ControllerClient& client, const std::string& job_id,
                           KvctlContext* context, StopSource* cancel,
                           const WatchOptions& options = {});

}  // namespace kvbench::kvctl
