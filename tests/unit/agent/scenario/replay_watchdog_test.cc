// ReplayWatchdog (agent/scenario): when a replay must end although kv-runner still runs (a dead
// cache server, a hung replica). Times are plain durations; the processes are real ones of this
// test (this process, a stopped child), so the states come from /proc as in production.

#include "agent/scenario/replay_watchdog.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"

namespace kvbench::agent {
namespace {

constexpr absl::Duration kTimeout = absl::Seconds(30);

TEST_CASE("ReplayWatchdog: the cache server's exit fails the replay at once, naming the tier",
          "[watchdog]") {
  ReplayWatchdog watchdog(kTimeout, absl::ZeroDuration(), v1::CPU_RAM, "cache-server");
  watchdog.ChildExited("replica-1 killed by signal 9");  // a replica: reported elsewhere
  CHECK_FALSE(watchdog.failure().has_value());
  watchdog.ChildExited("cache-server killed by signal 9");
  REQUIRE(watchdog.failure().has_value());
  CHECK(absl::IsFailedPrecondition(*watchdog.failure()));
  CHECK(std::string(watchdog.failure()->message()) ==
        "cache-server killed by signal 9 during the replay: the CPU_RAM tier under test is gone, "
        "so nothing after it measures that tier");
  // Decided once: a later stall does not replace the first reason.
  CHECK(absl::IsFailedPrecondition(*watchdog.Check(absl::Hours(1), {})));
}

TEST_CASE("ReplayWatchdog: the GPU tier has no cache server to lose", "[watchdog]") {
  ReplayWatchdog watchdog(kTimeout, absl::ZeroDuration(), v1::GPU, "");
  watchdog.ChildExited("cache-server killed by signal 9");
  CHECK_FALSE(watchdog.failure().has_value());
}

TEST_CASE("ReplayWatchdog: no progress for the timeout fails, naming a stopped process",
          "[watchdog]") {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    for (;;) ::pause();
  }
  REQUIRE(::kill(child, SIGSTOP) == 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, WUNTRACED) == child);  // it is stopped now
  const std::vector<WatchedProcess> processes = {{"replica-0", ::getpid()}, {"replica-1", child}};
  ReplayWatchdog watchdog(kTimeout, absl::ZeroDuration(), v1::GPU, "");
  // Progress at 20 s restarts the clock: 49 s is within 30 s of it, 50 s is not.
  CHECK_FALSE(watchdog.Check(absl::Seconds(29), processes).has_value());
  watchdog.Progressed(absl::Seconds(20));
  CHECK_FALSE(watchdog.Check(absl::Seconds(49), processes).has_value());
  const std::optional<absl::Status>& failure = watchdog.Check(absl::Seconds(50), processes);
  REQUIRE(failure.has_value());
  CHECK(absl::IsDeadlineExceeded(*failure));
  CHECK(std::string(failure->message()) ==
        absl::StrCat("no request completed for 30s (progress_timeout_s): replica-1 (pid ", child,
                     ") is stopped"));
  ::kill(child, SIGKILL);
  ::waitpid(child, &status, 0);
  CHECK(ProcessState(child) == "gone");
}

TEST_CASE("ReplayWatchdog: with nothing stopped, the stall names every process", "[watchdog]") {
  ReplayWatchdog watchdog(kTimeout, absl::ZeroDuration(), v1::NVME, "cache-server");
  const std::optional<absl::Status>& failure =
      watchdog.Check(absl::Seconds(31), {{"kv-runner", ::getpid()}});
  REQUIRE(failure.has_value());
  CHECK(std::string(failure->message()) ==
        absl::StrCat("no request completed for 30s (progress_timeout_s): no process is stopped, "
                     "a request hangs inside one of: kv-runner (pid ",
                     ::getpid(), ", running)"));
}

TEST_CASE("ReplayWatchdog: a zero timeout never stalls", "[watchdog]") {
  ReplayWatchdog watchdog(absl::ZeroDuration(), absl::ZeroDuration(), v1::GPU, "");
  CHECK_FALSE(watchdog.Check(absl::Hours(100), {}).has_value());
}

}  // namespace
}  // namespace kvbench::agent
