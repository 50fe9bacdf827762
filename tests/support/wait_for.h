#pragma once

#include <chrono>
#include <functional>
#include <thread>

#include "absl/time/time.h"

namespace kvbench::testing {

// Waits until `predicate` holds or `timeout` passes; returns the predicate's last value. Tests
// wait on conditions, never on fixed sleeps (STYLE.md rule 20): the poll interval only bounds
// how soon a true predicate is noticed.
inline bool WaitFor(const std::function<bool()>& predicate,
                    absl::Duration timeout = absl::Seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(timeout);
  while (!predicate()) {
    if (std::chrono::steady_clock::now() >= deadline) return predicate();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

}  // namespace kvbench::testing
