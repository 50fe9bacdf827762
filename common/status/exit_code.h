#pragma once

#include "absl/status/status.h"

namespace kvbench {

// Process exit codes derived from a final Status, shared by every binary (STYLE.md rule 18):
//   0 OK; 2 INVALID_ARGUMENT (bad input or usage: fix it); 3 NOT_FOUND; 4 UNAVAILABLE or
//   DEADLINE_EXCEEDED (retry); 5 FAILED_PRECONDITION / ALREADY_EXISTS (fix state);
//   6 UNAUTHENTICATED / PERMISSION_DENIED; 7 CANCELLED; 1 anything else. A status may carry its
//   own code (WithExitCode): 8, the run ended but a comparison it printed is invalid; 9, a diff
//   (kvctl diff) judged a metric a regression.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitInvalidArgument = 2;
inline constexpr int kExitInvalidResults = 8;
inline constexpr int kExitRegression = 9;

int ExitCodeForStatus(const absl::Status& status);

// `status` (not OK) marked to exit with `exit_code` instead of its code's.
absl::Status WithExitCode(absl::Status status, int exit_code);

}  // namespace kvbench
