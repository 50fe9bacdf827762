// The link's reconnect delay: exponential cap, full jitter (README "The agent ↔ controller
// link": "exponential backoff with full jitter").
#include "agent/link/reconnect_backoff.h"

#include <catch2/catch.hpp>

namespace kvbench::agent {
namespace {

TEST_CASE("BackoffCap doubles per failure from the initial delay up to the max", "[link]") {
  const absl::Duration initial = absl::Milliseconds(100);
  const absl::Duration max = absl::Seconds(1);
  struct Row {
    int failures;
    absl::Duration cap;
  };
  const Row rows[] = {
      {0, absl::Milliseconds(100)}, {1, absl::Milliseconds(100)}, {2, absl::Milliseconds(200)},
      {3, absl::Milliseconds(400)}, {4, absl::Milliseconds(800)}, {5, absl::Seconds(1)},
      {6, absl::Seconds(1)},        {1000, absl::Seconds(1)},
  };
  for (const Row& row : rows) {
    INFO("failures=" << row.failures);
    CHECK(BackoffCap(initial, max, row.failures) == row.cap);
  }
  // An initial delay above the max is held to the max.
  CHECK(BackoffCap(absl::Seconds(5), max, 1) == max);
}

TEST_CASE("FullJitter spans zero to the cap", "[link]") {
  const absl::Duration cap = absl::Milliseconds(800);
  CHECK(FullJitter(cap, 0.0) == absl::ZeroDuration());
  CHECK(FullJitter(cap, 0.5) == absl::Milliseconds(400));
  CHECK(FullJitter(cap, 1.0) == cap);
  CHECK(FullJitter(cap, 7.0) == cap);
  CHECK(FullJitter(cap, -1.0) == absl::ZeroDuration());
  CHECK(FullJitter(absl::ZeroDuration(), 0.7) == absl::ZeroDuration());
}

}  // namespace
}  // namespace kvbench::agent
