#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/sim/clock/sim_clock.h"
#include "agent/sim/engine/sim_engine.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"
#include "tests/unit/agent/sim/engine/core_harness.h"

namespace kvbench::sim {
namespace {

using kvbench::testing::TempDir;
using kvbench::testing::WaitFor;
using testing::TestConfig;
using testing::TestPrompt;

std::unique_ptr<SimClock> OpenClock(const std::string& path) {
  absl::StatusOr<std::unique_ptr<SimClock>> clock = SimClock::Open(path);
  REQUIRE(clock.ok());
  return std::move(*clock);
}

TEST_CASE("SimClock::Open refuses a file that is not a clock, naming it", "[sim_clock]") {
  TempDir dir;
  const std::string path = dir.WriteFile("not-a-clock", "hello");
  absl::StatusOr<std::unique_ptr<SimClock>> clock = SimClock::Open(path);
  REQUIRE(clock.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(clock.status().message()), Catch::Contains(path));
  CHECK(SimClock::Open(dir.File("missing")).status().code() ==
        absl::StatusCode::kFailedPrecondition);
  CHECK(SimClock::Create(dir.File("clock"), 0).code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("SimClock gives turns by (time, phase, rank) and moves time only by them",
          "[sim_clock]") {
  TempDir dir;
  REQUIRE(SimClock::Create(dir.File("clock"), 1e-4).ok());
  std::unique_ptr<SimClock> clock = OpenClock(dir.File("clock"));
  const auto never = [] { return false; };
  clock->Join(0);
  clock->Join(1);
  clock->EndTurn(0, 2.0, SimClock::kStep, false);
  clock->EndTurn(1, 2.0, SimClock::kDeliver, false);
  CHECK(clock->NowSeconds() == 0);
  // Rank 1's kDeliver at 2.0 comes before rank 0's kStep at 2.0.
  std::optional<SimClock::Turn> turn = clock->AwaitTurn(1, never);
  REQUIRE(turn);
  CHECK(turn->time_s == 2.0);
  CHECK(turn->phase == SimClock::kDeliver);
  CHECK(clock->NowSeconds() == 2.0);
  clock->EndTurn(1, 3.0, SimClock::kDeliver, false);
  turn = clock->AwaitTurn(0, never);
  REQUIRE(turn);
  CHECK(turn->phase == SimClock::kStep);
  // Arrivals at rank 0 (no event of its own) make a kStep at the current time, before rank 1's
  // event at 3.0; arrivals at rank 1 wait for its step under way to deliver, then step.
  clock->EndTurn(0, -1, SimClock::kStep, false);
  clock->MarkArrivals(0);
  clock->MarkArrivals(1);
  turn = clock->AwaitTurn(0, never);
  REQUIRE(turn);
  CHECK(turn->time_s == 2.0);
  CHECK(turn->phase == SimClock::kStep);
  clock->EndTurn(0, -1, SimClock::kStep, false);
  turn = clock->AwaitTurn(1, never);
  REQUIRE(turn);
  CHECK(turn->time_s == 3.0);
  CHECK(turn->phase == SimClock::kDeliver);
  clock->EndTurn(1, -1, SimClock::kStep, /*arrivals_pending=*/true);
  turn = clock->AwaitTurn(1, never);
  REQUIRE(turn);
  CHECK(turn->time_s == 3.0);
  CHECK(turn->phase == SimClock::kStep);
  clock->EndTurn(1, -1, SimClock::kStep, false);
  CHECK(clock->stalls() == 0);
  CHECK_FALSE(clock->AwaitTurn(0, [] { return true; }));
}

TEST_CASE("SimClock writes off a message nobody receives, and counts the stall", "[sim_clock]") {
  TempDir dir;
  REQUIRE(SimClock::Create(dir.File("clock"), 1e-4, /*stall_after_s=*/0.05).ok());
  std::unique_ptr<SimClock> clock = OpenClock(dir.File("clock"));
  clock->Join(0);
  clock->MarkArrivals(0);
  clock->Sent();
  const auto start = std::chrono::steady_clock::now();
  std::optional<SimClock::Turn> turn = clock->AwaitTurn(0, [] { return false; });
  REQUIRE(turn);
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(50));
  CHECK(clock->stalls() == 1);
  clock->Received();  // late: the count stays at zero
  clock->EndTurn(0, -1, SimClock::kStep, false);
}

// A closed loop of users over two engines sharing one clock, as kv-runner and two kvsim-vllm
// replicas do: a user's next round is submitted when its previous one finished, from a client
// thread that answers after a random delay (a busy host), counting its messages as
// RequestSession and RoundExchange do.
class ClosedLoop {
 public:
  struct Timing {
    double arrival_s, scheduled_s, first_token_s, finished_s;
    bool operator==(const Timing& o) const {
      return std::tie(arrival_s, scheduled_s, first_token_s, finished_s) ==
             std::tie(o.arrival_s, o.scheduled_s, o.first_token_s, o.finished_s);
    }
  };

  ClosedLoop(const std::string& clock_path, uint32_t jitter_seed)
      : jitter_(jitter_seed), client_([this] { ClientLoop(); }) {
    for (int rank = 0; rank < 2; ++rank) {
      EngineConfig config = TestConfig(/*num_gpu_blocks=*/160);  // short: preemptions
      auto engine = SimEngine::Create(config, nullptr, nullptr, OpenClock(clock_path), rank);
      REQUIRE(engine.ok());
      engines_.push_back(std::move(*engine));
      engines_.back()->Start();
    }
    clock_ = OpenClock(clock_path);
  }
  ~ClosedLoop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    client_.join();
    for (auto& engine : engines_) engine->Stop();
  }

  std::map<std::string, Timing> Run(int users, int rounds) {
    rounds_ = rounds;
    clock_->Sent();  // held until every first round is out, as Replay::Run does
    for (int user = 0; user < users; ++user) Send(user, 0);
    clock_->Received();
    REQUIRE(WaitFor(
        [&] {
          std::lock_guard<std::mutex> lock(mu_);
          return static_cast<int>(timings_.size()) == users * rounds;
        },
        absl::Seconds(60)));
    std::lock_guard<std::mutex> lock(mu_);
    return timings_;
  }

 private:
  void Send(int user, int round) {
    EngineRequest request;
    request.id = absl::StrCat("u", user, "-r", round);
    // Each round extends the user's conversation: a shared prefix with the previous one.
    request.prompt = TestPrompt(static_cast<size_t>(400 + 300 * round), static_cast<uint32_t>(user));
    request.max_tokens = 24 + 8 * (user % 3);
    request.ignore_eos = true;
    request.on_output = [this, user, round](const RequestOutput& output) {
      if (!output.finished) return;
      clock_->Sent();  // the response's end, as RequestSession counts it
      std::lock_guard<std::mutex> lock(mu_);
      const RequestTimings& t = output.timings;
      timings_[absl::StrCat("u", user, "-r", round)] = {t.arrival_s, t.scheduled_s,
                                                        t.first_token_s, t.finished_s};
      inbox_.emplace_back(user, round + 1);
      wake_.notify_all();
    };
    clock_->Sent();  // the request, as RoundExchange counts it
    engines_[static_cast<size_t>(user % 2)]->Submit(std::move(request));
    clock_->Received();  // taken in, as VllmApiServer says
  }

  void ClientLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      wake_.wait(lock, [&] { return stopping_ || !inbox_.empty(); });
      if (stopping_) return;
      const auto [user, round] = inbox_.front();
      inbox_.pop_front();
      const int delay_us = std::uniform_int_distribution<int>(0, 3000)(jitter_);
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us));  // a slow client
      if (round < rounds_) Send(user, round);
      clock_->Received();  // the end it answered
      lock.lock();
    }
  }

  std::mt19937 jitter_;
  int rounds_ = 0;
  std::vector<std::unique_ptr<SimEngine>> engines_;
  std::unique_ptr<SimClock> clock_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::pair<int, int>> inbox_;       // guarded by mu_
  std::map<std::string, ClosedLoop::Timing> timings_;  // guarded by mu_
  bool stopping_ = false;                       // guarded by mu_
  std::thread client_;
};

TEST_CASE("LockstepSimEngine: a closed loop gives the same simulated times however late the "
          "client answers",
          "[sim_engine][lockstep]") {
  TempDir dir;
  std::vector<std::map<std::string, ClosedLoop::Timing>> runs;
  for (uint32_t jitter_seed : {1u, 2u}) {
    const std::string path = dir.File(absl::StrCat("clock-", jitter_seed));
    REQUIRE(SimClock::Create(path, 1e-3).ok());
    ClosedLoop loop(path, jitter_seed);
    runs.push_back(loop.Run(/*users=*/8, /*rounds=*/4));
  }
  REQUIRE(runs[0].size() == 32);
  int differing = 0;
  for (const auto& [id, timing] : runs[0]) {
    if (!(runs[1].at(id) == timing)) ++differing;
  }
  CHECK(differing == 0);
  // Not a trivial schedule: rounds queued behind each other on the short cache.
  double worst_wait_s = 0;
  for (const auto& [id, timing] : runs[0]) {
    worst_wait_s = std::max(worst_wait_s, timing.scheduled_s - timing.arrival_s);
  }
  CHECK(worst_wait_s > 0);
}

}  // namespace
}  // namespace kvbench::sim
