// A capacity search through the JobManager, on a stepped loop with a real
// SQLite store: an agent whose tiers saturate at a concurrency known in advance (TTFT 0.2 s up to
// it, 2 s past it), reported as request rows the way agents send them. The search adds its
// probes as rounds end, finds each tier's capacity within its interval, survives a controller
// restart mid-search, and stops at a failed probe.

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "controller/spec/scenario_expander.h"
#include "tests/unit/controller/core/fake_agent_channel.h"
#include "tests/unit/controller/core/job_manager_harness.h"

namespace kvbench::controller {
namespace {

using testing::FakeAgentChannel;

// Where each tier saturates.
const std::map<v1::Tier, int> kSaturatesAbove = {{v1::GPU, 12}, {v1::CPU_RAM, 20}};

v1::JobSpec SearchSpec() {
  v1::JobSpec spec = SimSpec({v1::GPU, v1::CPU_RAM}, {});
  spec.clear_sessions();
  spec.mutable_slo()->set_ttft_p95_s(1.0);
  spec.mutable_concurrency_search()->set_min(1);
  spec.mutable_concurrency_search()->set_max(64);
  return spec;
}

// The scenario's rows: every user 5 rounds, TTFT 0.2 s (+-10%, by user and round) at or under
// the tier's saturation, 2 s past it.
v1::Event RowsEvent(const std::string& agent, const v1::Assignment& assignment, int64_t seq) {
  v1::Event event = StateEvent(agent, assignment, seq, v1::SCENARIO_STATE_UNSPECIFIED);
  const v1::Scenario& scenario = assignment.scenario();
  const double base = scenario.concurrency() <= kSaturatesAbove.at(scenario.tier()) ? 0.2 : 2.0;
  v1::RequestRecords* records = event.mutable_requests();
  records->set_first_index(0);
  double clock = 0;
  for (int user = 0; user < scenario.sessions(); ++user) {
    for (int round = 0; round < 5; ++round) {
      const double ttft = base * (0.9 + 0.2 * ((user * 7 + round * 3) % 11) / 10.0);
      v1::RequestRow* row = records->add_rows();
      row->set_user_id(absl::StrCat("u", user));
      row->set_session_id(absl::StrCat("s", user));
      row->set_round(round);
      row->set_scheduled_s(clock);
      row->set_sent_s(clock);
      row->set_first_token_s(clock + ttft);
      row->set_ttft_s(ttft);
      row->set_end_s(clock + ttft + 0.5);
      row->set_prompt_tokens(1000);
      row->set_output_tokens(64);
      row->set_http_status(200);
      row->set_attempts(1);
      clock += 0.1;
    }
  }
  records->set_total(records->rows_size());
  return event;
}

// Runs the assignments the channel has not run yet (those the runs bring too), at most
// `max_runs`: RUNNING, rows, result, SUCCEEDED.
int64_t RunNewAssignments(JobManagerHarness& h, FakeAgentChannel& channel, size_t* done,
                          int64_t seq, int max_runs = 1000) {
  for (int runs = 0; runs < max_runs && *done < channel.Assignments().size(); ++runs) {
    const v1::Assignment assignment = channel.Assignments()[(*done)++];
    h.Send(&channel, StateEvent("a", assignment, seq++, v1::SCENARIO_STATE_RUNNING));
    h.Send(&channel, RowsEvent("a", assignment, seq++));
    h.Send(&channel, ResultEvent("a", assignment, seq++));
    h.Send(&channel, StateEvent("a", assignment, seq++, v1::SCENARIO_STATE_SUCCEEDED));
  }
  return seq;
}

const v1::TierCapacity& TierOf(const v1::Job& job, v1::Tier tier) {
  for (const v1::TierCapacity& capacity : job.capacity().tiers()) {
    if (capacity.tier() == tier) return capacity;
  }
  FAIL("no capacity for " << v1::Tier_Name(tier));
  return job.capacity().tiers(0);
}

TEST_CASE("a capacity search finds each tier's known saturation within its interval",
          "[capacity][job_manager]") {
  JobManagerHarness h;
  FakeAgentChannel channel;
  h.Register(&channel, Registration("a", false));
  const std::string job = h.Submit(SearchSpec());
  // The first round: each tier at the search's min, GPU first.
  REQUIRE(h.Job(job).scenarios_size() == 2);
  CHECK(h.Job(job).scenarios(0).scenario().scenario_id() == "00-gpu-c1-r1");
  CHECK(h.Job(job).scenarios(1).scenario().scenario_id() == "01-cpu-ram-c1-r1");
  CHECK(h.Job(job).scenarios(0).scenario().sessions() == 8);  // kMinProbeSessions

  size_t done = 0;
  int64_t seq = 1;
  seq = RunNewAssignments(h, channel, &done, seq);
  const v1::Job ended = h.Job(job);
  REQUIRE(ended.state() == v1::JOB_STATE_SUCCEEDED);
  REQUIRE(ended.capacity().finished());
  for (const auto& [tier, saturation] : kSaturatesAbove) {
    const v1::TierCapacity& capacity = TierOf(ended, tier);
    INFO(v1::Tier_Name(tier) << ": " << capacity.ShortDebugString());
    REQUIRE(capacity.has_capacity());
    CHECK(capacity.low() <= saturation);
    CHECK(saturation <= capacity.high());
    CHECK(capacity.low() == capacity.capacity());
    // Within the 5% resolution (or 1 user).
    CHECK(capacity.high() - capacity.low() <= std::max(1, saturation * 5 / 100));
  }
  CHECK(TierOf(ended, v1::GPU).capacity() == 12);
  CHECK(TierOf(ended, v1::CPU_RAM).capacity() == 20);
  CHECK(ended.capacity().headline() ==
        "At TTFT p95 ≤ 1 s: GPU 12 users [12, 12], CPU_RAM 20 users [20, 21] (+67% [+67%, +75%])");
  // Every probe of a tier judged from its rows: met at or under the saturation, missed over it.
  for (const v1::TierCapacity& capacity : ended.capacity().tiers()) {
    for (const v1::CapacityProbe& probe : capacity.probes()) {
      const bool under = probe.concurrency() <= kSaturatesAbove.at(capacity.tier());
      CHECK(probe.outcome() == (under ? "met" : "missed"));
      REQUIRE(probe.measures_size() == 1);
      CHECK(probe.measures(0).metric() == "ttft_p95_s");
      CHECK(probe.measures(0).low_s() <= probe.measures(0).value_s());
      CHECK(probe.measures(0).value_s() <= probe.measures(0).high_s());
    }
  }
  // The GPU probes galloped 1, 2, 4, 8, 16, then bisected 12, 14, 13.
  std::vector<int> gpu;
  for (const v1::ScenarioStatus& status : ended.scenarios()) {
    if (status.scenario().tier() == v1::GPU) gpu.push_back(status.scenario().concurrency());
  }
  CHECK(gpu == std::vector<int>{1, 2, 4, 8, 16, 12, 14, 13});
}

TEST_CASE("a capacity search goes on after a controller restart, from the store",
          "[capacity][job_manager]") {
  JobManagerHarness h;
  auto channel = std::make_unique<FakeAgentChannel>();
  h.Register(channel.get(), Registration("a", false));
  const std::string job = h.Submit(SearchSpec());
  size_t done = 0;
  int64_t seq = 1;
  seq = RunNewAssignments(h, *channel, &done, seq, /*max_runs=*/6);  // rounds at 1, 2 and 4
  const int before = h.Job(job).scenarios_size();
  REQUIRE(before == 8);  // rounds at 1, 2, 4 and the fourth (8) queued
  h.Restart();
  channel = std::make_unique<FakeAgentChannel>();
  done = 0;
  h.Register(channel.get(), Registration("a", false));
  seq = RunNewAssignments(h, *channel, &done, seq);
  const v1::Job ended = h.Job(job);
  REQUIRE(ended.state() == v1::JOB_STATE_SUCCEEDED);
  CHECK(TierOf(ended, v1::GPU).capacity() == 12);
  CHECK(TierOf(ended, v1::CPU_RAM).capacity() == 20);
}

TEST_CASE("a search stopped between a round's end and the next round goes on at start",
          "[capacity][job_manager]") {
  JobManagerHarness h;
  h.manager.reset();
  // As a controller killed right after storing the first round's last end: every scenario
  // SUCCEEDED with its rows and result, the job RUNNING, no next round stored.
  v1::JobSpec spec = SearchSpec();
  spec.set_repeats(1);
  spec.set_seed(1);
  const std::vector<v1::Scenario> first = spec::ExpandScenarios(spec, "job-1");
  REQUIRE(first.size() == 2);
  REQUIRE(h.store->Jobs().PutJob("job-1", spec, first, 0, absl::Now(), "").ok());
  int64_t seq = 1;
  for (const v1::Scenario& scenario : first) {
    v1::Assignment assignment;
    *assignment.mutable_scenario() = scenario;
    assignment.set_attempt(1);
    REQUIRE(h.store->Events().AppendEvent(RowsEvent("a", assignment, seq++)).ok());
    REQUIRE(h.store->Jobs().PutResult("job-1", scenario.scenario_id(), v1::ScenarioResult()).ok());
    REQUIRE(h.store->Jobs()
                .SetScenarioState("job-1", scenario.scenario_id(), v1::SCENARIO_STATE_SUCCEEDED, "",
                                  1, "a")
                .ok());
  }
  JobStatusUpdate running;
  running.state = v1::JOB_STATE_RUNNING;
  running.start_time = absl::Now();
  REQUIRE(h.store->Jobs().UpdateJob("job-1", running).ok());
  h.Restart();
  const v1::Job resumed = h.Job("job-1");
  CHECK(resumed.state() == v1::JOB_STATE_RUNNING);
  REQUIRE(resumed.scenarios_size() == 4);  // the second round (2 users) was added at start
  CHECK(resumed.scenarios(2).scenario().scenario_id() == "02-gpu-c2-r1");
  CHECK(resumed.scenarios(3).state() == v1::SCENARIO_STATE_PENDING);
}

TEST_CASE("a failed probe ends the search and fails the job", "[capacity][job_manager]") {
  JobManagerHarness h;
  FakeAgentChannel channel;
  h.Register(&channel, Registration("a", false));
  const std::string job = h.Submit(SearchSpec());
  int64_t seq = 1;
  const v1::Assignment first = channel.Assignments()[0];
  h.Send(&channel, StateEvent("a", first, seq++, v1::SCENARIO_STATE_RUNNING));
  v1::Event failed = StateEvent("a", first, seq++, v1::SCENARIO_STATE_FAILED);
  failed.mutable_state_change()->set_reason("the engine crashed");
  h.Send(&channel, failed);
  const v1::Assignment second = channel.Assignments()[1];
  h.Send(&channel, StateEvent("a", second, seq++, v1::SCENARIO_STATE_RUNNING));
  h.Send(&channel, RowsEvent("a", second, seq++));
  h.Send(&channel, StateEvent("a", second, seq++, v1::SCENARIO_STATE_SUCCEEDED));
  const v1::Job ended = h.Job(job);
  CHECK(ended.state() == v1::JOB_STATE_FAILED);
  CHECK(ended.scenarios_size() == 2);  // no probe added after the failure
  CHECK_FALSE(ended.capacity().finished());
}

}  // namespace
}  // namespace kvbench::controller
