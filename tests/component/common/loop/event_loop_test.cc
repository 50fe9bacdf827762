#include "common/loop/event_loop.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <csignal>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/wait_for.h"

namespace kvbench {
namespace {

using testing::WaitFor;

// Runs an EventLoop on its own thread for the test's duration.
class LoopThread {
 public:
  explicit LoopThread(EventLoop* loop) : loop_(loop), thread_([loop] { loop->Run(); }) {}
  ~LoopThread() {
    loop_->Stop();
    thread_.join();
  }

 private:
  EventLoop* loop_;
  std::thread thread_;
};

TEST_CASE("Posted tasks run in order on the loop thread, from any thread") {
  EventLoop loop("test");
  std::mutex mu;
  std::vector<int> order;
  std::atomic<bool> on_loop_thread{true};
  LoopThread runner(&loop);
  std::vector<std::thread> posters;
  for (int t = 0; t < 4; ++t) {
    posters.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        loop.Post("test.append", [&, t, i] {
          if (!loop.IsLoopThread()) on_loop_thread = false;
          std::lock_guard<std::mutex> lock(mu);
          order.push_back(t * 1000 + i);
        });
      }
    });
  }
  for (auto& poster : posters) poster.join();
  REQUIRE(WaitFor([&] {
    std::lock_guard<std::mutex> lock(mu);
    return order.size() == 400;
  }));
  CHECK(on_loop_thread);
  CHECK_FALSE(loop.IsLoopThread());
  // Each poster's tasks keep their relative order.
  std::vector<int> last(4, -1);
  for (int value : order) {
    CHECK(value % 1000 > last[value / 1000]);
    last[value / 1000] = value % 1000;
  }
  CHECK(loop.Stats()["test.append"].runs == 400);
}

TEST_CASE("Timers fire in deadline order, cancelled ones never fire") {
  EventLoop loop("test");
  std::mutex mu;
  std::vector<std::string> fired;
  auto record = [&](std::string name) {
    return [&, name] {
      std::lock_guard<std::mutex> lock(mu);
      fired.push_back(name);
    };
  };
  LoopThread runner(&loop);
  loop.RunAfter("late", absl::Milliseconds(60), record("late"));
  TaskId cancelled = loop.RunAfter("cancelled", absl::Milliseconds(30), record("cancelled"));
  loop.RunAfter("early", absl::Milliseconds(5), record("early"));
  loop.Cancel(cancelled);
  REQUIRE(WaitFor([&] {
    std::lock_guard<std::mutex> lock(mu);
    return fired.size() == 2;
  }));
  // "late" fired after "cancelled" would have: the cancel held.
  std::lock_guard<std::mutex> lock(mu);
  CHECK(fired == std::vector<std::string>{"early", "late"});
}

TEST_CASE("RunEvery repeats until cancelled, also when cancelled from its own task") {
  EventLoop loop("test");
  std::atomic<int> ticks{0};
  TaskId id{};
  std::atomic<bool> armed{false};
  LoopThread runner(&loop);
  loop.Post("arm", [&] {
    id = loop.RunEvery("tick", absl::Milliseconds(2), [&] {
      if (++ticks == 5) loop.Cancel(id);
    });
    armed = true;
  });
  REQUIRE(WaitFor([&] { return ticks.load() >= 5; }));
  // After the cancel is processed no further tick runs; a later marker task proves the loop moved
  // on.
  std::atomic<bool> marker{false};
  loop.RunAfter("marker", absl::Milliseconds(20), [&] { marker = true; });
  REQUIRE(WaitFor([&] { return marker.load(); }));
  CHECK(ticks.load() == 5);
}

TEST_CASE("Stop from another thread makes Run return, a stopped loop does not run again") {
  EventLoop loop("test");
  std::atomic<bool> returned{false};
  std::thread thread([&] {
    loop.Run();
    returned = true;
  });
  std::atomic<bool> ran{false};
  loop.Post("ping", [&] { ran = true; });
  REQUIRE(WaitFor([&] { return ran.load(); }));
  loop.Stop();
  REQUIRE(WaitFor([&] { return returned.load(); }));
  thread.join();
  CHECK(loop.stopped());
  loop.Run();  // returns at once
}

TEST_CASE("Signals are delivered to the loop thread as tasks") {
  EventLoop loop("test");
  std::atomic<int> received{0};
  std::atomic<bool> on_loop{false};
  loop.OnSignals({SIGUSR1}, [&](int signal) {
    on_loop = loop.IsLoopThread();
    received = signal;
  });
  LoopThread runner(&loop);
  std::atomic<bool> running{false};
  loop.Post("started", [&] { running = true; });
  REQUIRE(WaitFor([&] { return running.load(); }));
  std::raise(SIGUSR1);
  REQUIRE(WaitFor([&] { return received.load() == SIGUSR1; }));
  CHECK(on_loop);
  received = 0;
  std::raise(SIGUSR1);  // the handler re-arms
  REQUIRE(WaitFor([&] { return received.load() == SIGUSR1; }));
}

}  // namespace
}  // namespace kvbench
