// The real ThreadScenarioWorker running a real simulated scenario (kvsim-vllm, Caddy,
// kv-runner) when the controller requeues it on the same agent: attempt 2
// supersedes attempt 1, which is stopped first; each attempt writes into its own folder and every
// event carries its attempt, so nothing of attempt 1 lands in attempt 2's files or state; a late
// cancel of attempt 1 leaves attempt 2 to run to its end.
#include <catch2/catch.hpp>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/scenario/thread_scenario_worker.h"
#include "agent/work_dir_layout.h"
#include "tests/component/agent/scenario/scenario_harness.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

class Recorded {
 public:
  void Add(v1::Event event) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(event));
  }
  std::vector<v1::Event> Of(int attempt) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<v1::Event> of;
    for (const v1::Event& event : events_) {
      if (event.attempt() == attempt) of.push_back(event);
    }
    return of;
  }
  std::vector<v1::Event> All() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<v1::Event> events_;
};

bool Ended(const std::vector<v1::Event>& events) {
  return !events.empty() && agent::IsTerminalEvent(events.back());
}

bool Replaying(const std::vector<v1::Event>& events) {
  for (const v1::Event& event : events) {
    if (event.has_progress() && event.progress().phase() == v1::SCENARIO_PHASE_REPLAY) return true;
  }
  return false;
}

TEST_CASE("A newer attempt supersedes the running one: stopped first, its own folder",
          "[link][Scenario]") {
  ScenarioHarness harness;
  const std::string out = harness.dir() + "/attempts";
  auto runner = agent::ThreadScenarioWorker::CreateWith(
      harness.NewEnvironments(), [&](const v1::ScenarioAttempt& attempt) {
        return absl::StrCat(out, "/",
                            agent::AttemptDirName(attempt.scenario_id(), attempt.attempt()));
      });
  v1::Assignment first;
  *first.mutable_scenario() = ScenarioHarness::MakeScenario(v1::GPU, 2, 24);
  *first.mutable_spec() = ScenarioHarness::SimJob(1, 1.0);  // real time: seconds of replay
  first.set_attempt(1);
  v1::Assignment second = first;
  second.set_attempt(2);
  Recorded events;
  auto sink = [&](v1::Event event) { events.Add(std::move(event)); };

  REQUIRE(runner->Start(first, sink).ok());
  REQUIRE(WaitFor([&] { return Replaying(events.Of(1)); }, absl::Seconds(60)));
  // The same attempt again (a resent assignment) changes nothing; another scenario is refused.
  REQUIRE(runner->Start(first, sink).ok());
  v1::Assignment other = first;
  other.mutable_scenario()->set_scenario_id("01-gpu-c2");
  CHECK(absl::IsFailedPrecondition(runner->Start(other, sink)));

  REQUIRE(runner->Start(second, sink).ok());
  REQUIRE(WaitFor([&] { return Replaying(events.Of(2)); }, absl::Seconds(60)));
  CHECK(runner->running().attempt() == 2);
  // Attempt 1 ended (cancelled) before attempt 2's first event.
  const std::vector<v1::Event> all = events.All();
  size_t first_of_2 = 0;
  while (all[first_of_2].attempt() != 2) ++first_of_2;
  REQUIRE(first_of_2 > 0);
  CHECK(all[first_of_2 - 1].attempt() == 1);
  CHECK(all[first_of_2 - 1].state_change().state() == v1::SCENARIO_STATE_CANCELLED);
  for (const v1::Event& event : all) {
    CHECK((event.attempt() == 1 || event.attempt() == 2));
    CHECK(event.job_id() == "job");
  }

  // A cancel of attempt 1 is not for attempt 2: attempt 2 replays to its end and succeeds.
  // (running() cannot tell at once: a cancelled attempt stays the running one until its teardown
  // is over.)
  REQUIRE_FALSE(Ended(events.Of(2)));
  runner->Cancel(agent::AttemptOf(first));
  REQUIRE(WaitFor([&] { return Ended(events.Of(2)); }, absl::Seconds(120)));
  CHECK(events.Of(2).back().state_change().state() == v1::SCENARIO_STATE_SUCCEEDED);
  CHECK(runner->running().scenario_id().empty());

  // A cancel of the running attempt ends it.
  v1::Assignment third = first;
  third.set_attempt(3);
  REQUIRE(runner->Start(third, sink).ok());
  REQUIRE(WaitFor([&] { return Replaying(events.Of(3)); }, absl::Seconds(60)));
  runner->Cancel(agent::AttemptOf(third));
  REQUIRE(WaitFor([&] { return Ended(events.Of(3)); }, absl::Seconds(60)));
  CHECK(events.Of(3).back().state_change().state() == v1::SCENARIO_STATE_CANCELLED);
  CHECK(runner->running().scenario_id().empty());

  // Each attempt's files in its own folder: kv-runner wrote a summary into both.
  CHECK(std::filesystem::exists(out + "/00-gpu-c2/summary.json"));
  CHECK(std::filesystem::exists(out + "/00-gpu-c2.attempt-2/summary.json"));
  runner->Shutdown();
  CHECK(ScenarioHarness::LiveChildren().empty());
}

}  // namespace
}  // namespace kvbench::testing
