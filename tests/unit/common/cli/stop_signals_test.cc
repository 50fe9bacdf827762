// StopOnSignals (common/cli): a real signal to this process requests the stop, which wakes a
// waiter at once (no polling) and runs the callbacks on an ordinary thread.

#include "common/cli/stop_signals.h"

#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "common/sync/stop_callback.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

TEST_CASE("StopOnSignals: a signal requests the stop and wakes the waiter", "[stop_signals]") {
  // SIGUSR2 and SIGWINCH are free in this test binary; each gets its own source.
  StopSource* source = StopOnSignals({SIGUSR2, SIGWINCH});
  REQUIRE(source != nullptr);
  CHECK(StopOnSignals({SIGUSR2, SIGWINCH}) == source);  // the same set: the same source
  std::atomic<bool> callback_ran{false};
  std::atomic<bool> on_handler_thread{false};
  const std::thread::id main_thread = std::this_thread::get_id();
  StopCallback on_stop(source, [&] {
    callback_ran = true;
    on_handler_thread = std::this_thread::get_id() == main_thread;
  });
  CHECK_FALSE(source->stop_requested());
  REQUIRE(::raise(SIGWINCH) == 0);
  CHECK(source->WaitFor(absl::InfiniteDuration()));  // hangs if the signal is lost
  CHECK(source->stop_requested());
  REQUIRE(WaitFor([&] { return callback_ran.load(); }));  // run right after the waiters woke
  CHECK_FALSE(on_handler_thread.load());  // the watcher thread, not the interrupted one
  // A second signal of the set changes nothing (the request happens once).
  REQUIRE(::raise(SIGUSR2) == 0);
  CHECK(source->stop_requested());
}

}  // namespace
}  // namespace kvbench::testing
