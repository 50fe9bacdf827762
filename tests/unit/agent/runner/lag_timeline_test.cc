#include "agent/runner/lag_timeline.h"

#include <catch2/catch.hpp>
#include <functional>
#include <mutex>
#include <vector>

#include "agent/runner/loop_lag_probe.h"
#include "tests/fakes/fake_async_http_client.h"
#include "tests/support/wait_for.h"

// kv-runner's loop lag: the timeline each request's loop_lag_s is read from, and the
// probe that fills it.
namespace kvbench::runner {
namespace {

TEST_CASE("LagTimeline: the largest lateness of the buckets a window covers", "[runner][host]") {
  LagTimeline timeline(0.02);
  CHECK_FALSE(timeline.MaxBetween(0, 1).has_value());  // no probe ran: not measured
  timeline.Record(0.005, 0.0001);                      // bucket 0
  timeline.Record(0.015, 0.0003);                      // bucket 0
  timeline.Record(0.045, 0.0020);                      // bucket 2
  timeline.Record(0.105, 0.0005);                      // bucket 5
  CHECK(*timeline.MaxBetween(0.0, 0.019) == Approx(0.0003));
  CHECK(*timeline.MaxBetween(0.010, 0.050) == Approx(0.0020));
  CHECK(*timeline.MaxBetween(0.0, 1.0) == Approx(0.0020));
  CHECK(*timeline.MaxBetween(0.100, 0.101) == Approx(0.0005));
  // No probe in buckets 3-4: the latest before them (bucket 2) says how the loop was.
  CHECK(*timeline.MaxBetween(0.061, 0.095) == Approx(0.0020));
  // After the last probe, the last one.
  CHECK(*timeline.MaxBetween(0.5, 0.6) == Approx(0.0005));
  // Further back than the look-back: nothing known.
  CHECK_FALSE(timeline.MaxBetween(0.02 * (LagTimeline::kLookBackBuckets + 10), 100).has_value());
  timeline.Record(-1, 0.5);   // ignored: before the clock
  timeline.Record(0.01, -1);  // ignored: not a lateness
  CHECK(*timeline.MaxBetween(0, 0.019) == Approx(0.0003));
}

// A client whose one "loop" runs posted tasks only when the test says (a stalled loop).
class StalledLoopClient : public testing::FakeAsyncHttpClient {
 public:
  bool Post(std::function<void()> task) override {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
    return true;
  }
  size_t queued() {
    std::lock_guard<std::mutex> lock(mu_);
    return tasks_.size();
  }
  void RunQueued() {
    std::vector<std::function<void()>> tasks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks.swap(tasks_);
    }
    for (auto& task : tasks) task();
  }

 private:
  std::mutex mu_;
  std::vector<std::function<void()>> tasks_;
};

TEST_CASE("LoopLagProbe: a loop that answers late shows a lag at least that late",
          "[runner][host]") {
  StalledLoopClient client;
  const ReplayClock clock;
  LoopLagProbe probe(&client, &clock, absl::Milliseconds(5));
  probe.Start();
  // The loop answers nothing while 6 probes queue: the first waited at least 5 periods.
  REQUIRE(testing::WaitFor([&] { return client.queued() >= 6; }));
  const double stalled_until = clock.Now();
  client.RunQueued();
  probe.Stop();
  const std::optional<double> lag = probe.MaxLag(0, stalled_until + 1);
  REQUIRE(lag.has_value());
  CHECK(*lag >= 0.025);
}

TEST_CASE("LoopLagProbe: a client that cannot post measures nothing", "[runner][host]") {
  testing::FakeAsyncHttpClient client;  // Post: false
  const ReplayClock clock;
  LoopLagProbe probe(&client, &clock, absl::Milliseconds(1));
  probe.Start();
  probe.Stop();
  CHECK_FALSE(probe.MaxLag(0, 100).has_value());
}

}  // namespace
}  // namespace kvbench::runner
