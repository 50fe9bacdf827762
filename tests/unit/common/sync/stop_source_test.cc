// StopSource and StopCallback (common/sync): a stop request wakes its waiters at once and runs
// each callback exactly once, and a StopCallback never runs after its destructor returned.

#include "common/sync/stop_source.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <thread>
#include <vector>

#include "common/sync/stop_callback.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

TEST_CASE("StopSource WaitFor times out without a request and returns at once after one",
          "[stop_source]") {
  StopSource source;
  CHECK_FALSE(source.stop_requested());
  CHECK_FALSE(source.WaitFor(absl::Milliseconds(1)));
  source.RequestStop();
  CHECK(source.stop_requested());
  CHECK(source.WaitFor(absl::ZeroDuration()));
  CHECK(source.WaitFor(absl::InfiniteDuration()));
}

TEST_CASE("StopSource wakes a thread waiting without a deadline", "[stop_source]") {
  StopSource source;
  std::atomic<bool> woke{false};
  std::thread waiter([&] { woke = source.WaitFor(absl::InfiniteDuration()); });
  CHECK_FALSE(woke.load());
  source.RequestStop();
  waiter.join();  // hangs (and the test times out) if the request does not wake it
  CHECK(woke.load());
}

TEST_CASE("StopCallback runs once on the first request, in registration order", "[stop_source]") {
  StopSource source;
  std::vector<int> runs;
  StopCallback first(&source, [&] { runs.push_back(1); });
  StopCallback second(&source, [&] { runs.push_back(2); });
  CHECK(runs.empty());
  source.RequestStop();
  source.RequestStop();
  CHECK(runs == std::vector<int>{1, 2});
}

TEST_CASE("StopCallback runs at once when the stop was already requested", "[stop_source]") {
  StopSource source;
  source.RequestStop();
  int runs = 0;
  StopCallback late(&source, [&] { ++runs; });
  CHECK(runs == 1);
  StopCallback none(nullptr, [&] { ++runs; });  // no source: never
  CHECK(runs == 1);
}

TEST_CASE("StopCallback destroyed before the request never runs", "[stop_source]") {
  StopSource source;
  int runs = 0;
  {
    StopCallback gone(&source, [&] { ++runs; });
  }
  source.RequestStop();
  CHECK(runs == 0);
}

// The destructor must not return while the callback runs on another thread: what the callback
// touches (a gRPC context, a client) is destroyed right after it.
TEST_CASE("StopCallback's destructor waits for its callback running on another thread",
          "[stop_source]") {
  StopSource source;
  std::atomic<bool> entered{false};
  std::atomic<bool> release{false};
  std::atomic<bool> finished{false};
  auto callback = std::make_unique<StopCallback>(&source, [&] {
    entered = true;
    while (!release.load()) std::this_thread::yield();
    finished = true;
  });
  std::thread requester([&] { source.RequestStop(); });
  REQUIRE(WaitFor([&] { return entered.load(); }));
  std::atomic<bool> finished_when_destroyed{false};
  std::thread destroyer([&] {
    callback.reset();
    finished_when_destroyed = finished.load();
  });
  release = true;
  destroyer.join();
  requester.join();
  CHECK(finished_when_destroyed.load());
}

}  // namespace
}  // namespace kvbench::testing
