#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_executor.h"

namespace kvbench::testing {
namespace {

TEST_CASE("FakeExecutor runs nothing until stepped, then posted tasks in order") {
  FakeClock clock;
  FakeExecutor executor(&clock);
  std::vector<int> order;
  executor.Post("a", [&] { order.push_back(1); });
  executor.Post("b", [&] {
    order.push_back(2);
    executor.Post("c", [&] { order.push_back(3); });  // posted from a task: runs in this step
  });
  CHECK(order.empty());
  CHECK(executor.RunUntilIdle() == 3);
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK(executor.ran() == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("FakeExecutor fires timers at their deadlines as the clock advances") {
  FakeClock clock;
  FakeExecutor executor(&clock);
  const absl::Duration start = clock.Monotonic();
  std::vector<std::pair<std::string, absl::Duration>> fired;
  auto record = [&](const std::string& name) {
    return [&, name] { fired.emplace_back(name, clock.Monotonic() - start); };
  };
  executor.RunAfter("late", absl::Seconds(10), record("late"));
  executor.RunAfter("early", absl::Seconds(3), record("early"));
  executor.RunEvery("tick", absl::Seconds(4), record("tick"));

  executor.AdvanceTime(absl::Seconds(2));
  CHECK(fired.empty());
  executor.AdvanceTime(absl::Seconds(10));  // to t = 12 s
  REQUIRE(fired.size() == 5);
  CHECK(fired[0] == std::make_pair(std::string("early"), absl::Seconds(3)));
  CHECK(fired[1] == std::make_pair(std::string("tick"), absl::Seconds(4)));
  CHECK(fired[2] == std::make_pair(std::string("tick"), absl::Seconds(8)));
  CHECK(fired[3] == std::make_pair(std::string("late"), absl::Seconds(10)));
  CHECK(fired[4] == std::make_pair(std::string("tick"), absl::Seconds(12)));
  CHECK(clock.Monotonic() - start == absl::Seconds(12));
}

TEST_CASE("FakeExecutor: a cancelled timer never fires, including from inside its own run") {
  FakeClock clock;
  FakeExecutor executor(&clock);
  int once = 0, periodic = 0;
  TaskId one_shot = executor.RunAfter("once", absl::Seconds(1), [&] { ++once; });
  TaskId tick{};
  tick = executor.RunEvery("tick", absl::Seconds(1), [&] {
    if (++periodic == 3) executor.Cancel(tick);
  });
  executor.Cancel(one_shot);
  executor.AdvanceTime(absl::Seconds(10));
  CHECK(once == 0);
  CHECK(periodic == 3);
  CHECK(executor.timer_count() == 0);
}

TEST_CASE("FakeClock moves wall and monotonic time together") {
  FakeClock clock;
  absl::Time wall = clock.Now();
  absl::Duration mono = clock.Monotonic();
  clock.AdvanceTime(absl::Milliseconds(1500));
  CHECK(clock.Now() - wall == absl::Milliseconds(1500));
  CHECK(clock.Monotonic() - mono == absl::Milliseconds(1500));
  CHECK(absl::ToUnixSeconds(wall) == FakeClock::kStartUnixSeconds);
}

}  // namespace
}  // namespace kvbench::testing
