// Supervisor::AwaitReady on fake time: a FakeClock, a FakeSleeper that moves it, a
// FakeProcessLauncher and a FakeHttpClient. No child, no socket, no real wait: the ready
// timeout, a child's exit and a raised cancel flag each end the wait when the clock says so.
#include <atomic>
#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "agent/supervisor/supervisor.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_http_client.h"
#include "tests/fakes/fake_process_launcher.h"
#include "tests/fakes/fake_sleeper.h"
#include "tests/support/temp_dir.h"

namespace kvbench::agent::testing {
namespace {

using ::kvbench::testing::FakeClock;
using ::kvbench::testing::FakeHttpClient;
using ::kvbench::testing::FakeProcessLauncher;
using ::kvbench::testing::FakeSleeper;
using ::kvbench::testing::TempDir;

constexpr char kHealth[] = "http://127.0.0.1:8000/health";

struct FakeWorld {
  FakeWorld() : sleeper(&clock) {
    http.SetDefaultResponse(kHealth, FakeHttpClient::MakeResponse(503, "starting"));
    supervisor =
        std::make_unique<Supervisor>(&launcher, &http, &clock, dir.File("logs"), dir.File("run"),
                                     absl::Seconds(30), &cancelled, &sleeper);
    REQUIRE(supervisor->Start("replica-0", {"vllm", "serve"}, {}).ok());
    started = clock.Monotonic();
  }
  ~FakeWorld() { supervisor.reset(); }

  absl::Duration elapsed() const { return clock.Monotonic() - started; }
  size_t probes() const { return http.requests().size(); }

  TempDir dir;
  FakeClock clock;
  FakeSleeper sleeper;
  FakeProcessLauncher launcher;
  FakeHttpClient http;
  std::atomic<bool> cancelled{false};
  std::unique_ptr<Supervisor> supervisor;
  absl::Duration started;
};

TEST_CASE("AwaitReady gives up exactly at its deadline on the clock", "[supervisor]") {
  FakeWorld world;
  // Not a multiple of the probe period: the last wait is cut to the deadline.
  const absl::Duration deadline = absl::Milliseconds(1025);
  const absl::Status ready = world.supervisor->AwaitReady("replica-0", {kHealth}, deadline);
  INFO(ready.ToString());
  CHECK(ready.code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(absl::StrContains(ready.message(), "replica-0 not ready after 1.025s"));
  CHECK(absl::StrContains(ready.message(), "HTTP 503"));
  CHECK(world.elapsed() == deadline);
  // One probe per period from 0 to 1 s, and a last one at the deadline.
  CHECK(world.probes() == 22);
  for (absl::Duration sleep : world.sleeper.sleeps()) CHECK(sleep <= Supervisor::kProbePeriod);
}

TEST_CASE("AwaitReady is ready at the first probe that passes", "[supervisor]") {
  FakeWorld world;
  for (int i = 0; i < 3; ++i) {
    world.http.EnqueueResponse(kHealth, FakeHttpClient::MakeResponse(503, "starting"));
  }
  world.http.SetDefaultResponse(kHealth, FakeHttpClient::MakeResponse(200, "ok"));
  CHECK(world.supervisor->AwaitReady("replica-0", {kHealth}, absl::Seconds(30)).ok());
  CHECK(world.elapsed() == 3 * Supervisor::kProbePeriod);
}

TEST_CASE("AwaitReady notices a child that exits while it waits", "[supervisor]") {
  FakeWorld world;
  world.sleeper.set_on_sleep([&](absl::Duration now) {
    if (now - world.started >= absl::Seconds(3)) world.launcher.last_process()->Exit({false, 1, 0});
  });
  const absl::Status ready = world.supervisor->AwaitReady("replica-0", {kHealth}, absl::Hours(1));
  INFO(ready.ToString());
  CHECK(ready.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(absl::StrContains(ready.message(), "replica-0 exited with code 1 during start-up"));
  CHECK(world.elapsed() == absl::Seconds(3));
}

TEST_CASE("AwaitReady ends when the cancel flag is raised", "[supervisor]") {
  FakeWorld world;
  world.sleeper.set_on_sleep([&](absl::Duration) {
    if (world.sleeper.sleeps().size() == 2) world.cancelled = true;
  });
  const absl::Status ready = world.supervisor->AwaitReady("replica-0", {kHealth}, absl::Hours(1));
  INFO(ready.ToString());
  CHECK(ready.code() == absl::StatusCode::kCancelled);
  CHECK(absl::StrContains(ready.message(), "replica-0 not ready: cancelled"));
  CHECK(world.elapsed() == 2 * Supervisor::kProbePeriod);
  CHECK(world.probes() == 2);
}

TEST_CASE("The wait hook runs at every probe period and after each child StopAll stops",
          "[supervisor]") {
  FakeWorld world;
  std::vector<absl::Duration> calls;
  world.supervisor->SetWaitHook([&] { calls.push_back(world.elapsed()); });
  const absl::Status ready =
      world.supervisor->AwaitReady("replica-0", {kHealth}, absl::Milliseconds(500));
  CHECK(ready.code() == absl::StatusCode::kDeadlineExceeded);
  // Before each of the 10 sleeps, none after the deadline's last probe.
  REQUIRE(calls.size() == 10);
  for (size_t i = 0; i < calls.size(); ++i) CHECK(calls[i] == Supervisor::kProbePeriod * i);

  calls.clear();
  REQUIRE(world.supervisor->Start("replica-1", {"vllm", "serve"}, {}).ok());
  CHECK(world.supervisor->StopAll().ok());
  CHECK(calls.size() == 2);
}

}  // namespace
}  // namespace kvbench::agent::testing
