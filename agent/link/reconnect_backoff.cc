#include "agent/link/reconnect_backoff.h"

#include <algorithm>

namespace kvbench::agent {

absl::Duration BackoffCap(absl::Duration initial, absl::Duration max, int failures) {
  absl::Duration cap = initial;
  for (int i = 1; i < failures && cap < max; ++i) cap *= 2;
  return std::min(cap, max);
}

absl::Duration FullJitter(absl::Duration cap, double unit) {
  if (cap <= absl::ZeroDuration()) return absl::ZeroDuration();
  return cap * std::clamp(unit, 0.0, 1.0);
}

}  // namespace kvbench::agent
