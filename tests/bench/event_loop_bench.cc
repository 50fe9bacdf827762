// Event loop figures: cross-thread Post throughput and timer lateness. Prints, asserts nothing.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

#include "common/loop/event_loop.h"
#include "tests/bench/bench_stats.h"

namespace {

using Clock = std::chrono::steady_clock;

void PostThroughput(int posters, int per_poster) {
  kvbench::EventLoop loop("bench");
  std::atomic<int> done{0};
  const int total = posters * per_poster;
  std::thread runner([&] { loop.Run(); });
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int p = 0; p < posters; ++p) {
    threads.emplace_back([&] {
      for (int i = 0; i < per_poster; ++i) {
        loop.Post("bench.post", [&] {
          if (done.fetch_add(1) + 1 == total) loop.Stop();
        });
      }
    });
  }
  for (auto& thread : threads) thread.join();
  runner.join();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("post: %d threads x %d tasks: %.0f tasks/s (%.0f ns per task)\n", posters,
              per_poster, total / seconds, seconds * 1e9 / total);
}

// A chain of one-shot timers, each armed by the previous one: how late a timer fires on an
// otherwise idle loop (what a 15 s sampling tick sees).
void TimerLateness(int timers) {
  kvbench::EventLoop loop("bench");
  std::vector<double> late_us;
  late_us.reserve(timers);
  std::function<void()> arm = [&] {
    auto due = Clock::now() + std::chrono::milliseconds(1);
    loop.RunAfter("bench.timer", absl::Milliseconds(1), [&, due] {
      late_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - due).count());
      if (static_cast<int>(late_us.size()) == timers) {
        loop.Stop();
      } else {
        arm();
      }
    });
  };
  loop.Post("bench.arm", arm);
  loop.Run();
  std::printf("timers: chain of %d x 1 ms: lateness p50 %.1f us, p99 %.1f us, max %.1f us\n",
              timers, kvbench::bench::Percentile(late_us, 50),
              kvbench::bench::Percentile(late_us, 99), kvbench::bench::Percentile(late_us, 100));
}

// Many timers armed at once from another thread: how fast the loop gets through them.
void TimerBurst(int timers) {
  kvbench::EventLoop loop("bench");
  std::atomic<int> fired{0};
  std::thread runner([&] { loop.Run(); });
  auto start = Clock::now();
  for (int i = 0; i < timers; ++i) {
    loop.RunAfter("bench.timer", absl::Milliseconds(1 + i % 5), [&] {
      if (fired.fetch_add(1) + 1 == timers) loop.Stop();
    });
  }
  runner.join();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("timers: burst of %d (1-5 ms): all fired after %.1f ms (%.0f timers/s)\n", timers,
              seconds * 1e3, timers / seconds);
}

}  // namespace

int main() {
  PostThroughput(1, 1000000);
  PostThroughput(4, 250000);
  TimerLateness(2000);
  TimerBurst(20000);
  return 0;
}
