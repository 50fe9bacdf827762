#pragma once

#include "absl/time/time.h"

namespace kvbench::agent {

// The upper bound of the delay before reconnect attempt number `failures` (1 = the first retry
// after a failure): `initial` doubled per earlier failure, capped at `max` (exponential backoff).
// `failures` < 1 counts as 1.
absl::Duration BackoffCap(absl::Duration initial, absl::Duration max, int failures);

// "Full jitter" (AWS Architecture Blog, "Exponential Backoff And Jitter"): the delay is drawn
// uniformly from [0, cap], so agents cut off together do not reconnect together. `unit` is a
// uniform draw in [0, 1] (clamped), given by the caller so this stays pure.
absl::Duration FullJitter(absl::Duration cap, double unit);

}  // namespace kvbench::agent
