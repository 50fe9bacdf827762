// What the JobManager takes from an agent at ingest (issue #36): only events about an attempt
// the sending agent was assigned, of a job that exists, without a controller-only payload; each
// refused one acknowledged (consumed) but neither stored nor applied, and counted. Seqs on a
// stream positive, bounded and contiguous, else the stream ends INVALID_ARGUMENT unacknowledged.
// An assignment its agent never starts times out though the agent heartbeats.

#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <vector>

#include "tests/unit/controller/core/fake_agent_channel.h"
#include "tests/unit/controller/core/job_manager_harness.h"

namespace kvbench::controller {
namespace {

using testing::FakeAgentChannel;
using Harness = JobManagerHarness;

v1::Event RowsEvent(const std::string& agent, const v1::Assignment& assignment, int64_t seq,
                    int first_index, int rows, double sent_s) {
  v1::Event event = StateEvent(agent, assignment, seq, v1::SCENARIO_STATE_UNSPECIFIED);
  event.mutable_requests()->set_first_index(first_index);
  event.mutable_requests()->set_total(rows);
  for (int i = 0; i < rows; ++i) event.mutable_requests()->add_rows()->set_sent_s(sent_s);
  return event;
}

// Every stored event of the job, as watchers read them.
std::vector<v1::Event> Stored(Harness& h, const std::string& job) {
  absl::StatusOr<WatchBatch> batch = h.manager->WatchEvents(job, 0);
  REQUIRE(batch.ok());
  std::vector<v1::Event> events;
  for (const v1::WatchJobResponse& response : batch->events) events.push_back(response.event());
  return events;
}

absl::Status SendRaw(Harness& h, FakeAgentChannel* channel, const v1::Event& event) {
  v1::AgentMessage message;
  *message.mutable_event() = event;
  absl::Status status = h.manager->OnAgentMessage(channel, message);
  h.loop.RunUntilIdle();
  return status;
}

TEST_CASE("a second agent's rows, states and alerts for another agent's scenario are refused",
          "[job_manager][agent_events]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {4}));
  FakeAgentChannel real;
  h.Register(&real, Registration("real", false));
  const v1::Assignment assignment = real.Assignments().at(0);
  FakeAgentChannel rogue;
  h.Register(&rogue, Registration("rogue", false));
  REQUIRE(rogue.Assignments().empty());

  // Forged rows at the real chunk's first_index, a forged failure, an alert, a LOST, a job that
  // does not exist: each acknowledged in turn, none stored or applied.
  h.Send(&rogue, RowsEvent("rogue", assignment, 1, 0, 3, 99.0));
  v1::Event failed = StateEvent("rogue", assignment, 2, v1::SCENARIO_STATE_FAILED);
  failed.mutable_state_change()->set_reason("INJECTED FAILURE");
  h.Send(&rogue, failed);
  v1::Event alert = StateEvent("rogue", assignment, 3, v1::SCENARIO_STATE_UNSPECIFIED);
  alert.mutable_alert()->set_job_id(job);
  h.Send(&rogue, alert);
  h.Send(&rogue, StateEvent("rogue", assignment, 4, v1::SCENARIO_STATE_LOST));
  v1::Event nowhere = StateEvent("rogue", assignment, 5, v1::SCENARIO_STATE_RUNNING);
  nowhere.set_job_id("no-such-job");
  h.Send(&rogue, nowhere);
  // The real agent's own alert is refused too: the field is the controller's.
  v1::Event own_alert = StateEvent("real", assignment, 1, v1::SCENARIO_STATE_UNSPECIFIED);
  own_alert.mutable_alert()->set_job_id(job);
  h.Send(&real, own_alert);

  CHECK(rogue.LastAck() == 5);
  CHECK(real.LastAck() == 1);
  CHECK(rogue.closed.ok());  // the stream stays: ending it would only bring the events back
  const JobManager::Stats& stats = h.manager->stats();
  CHECK(stats.refused_not_owner == 2);
  CHECK(stats.refused_controller_only == 3);
  CHECK(stats.refused_unknown_job == 1);
  CHECK(stats.events_stored == 0);
  for (const v1::Event& event : Stored(h, job)) CHECK(event.agent_id() == kControllerEventSource);
  CHECK(h.Job(job).scenarios(0).state() == v1::SCENARIO_STATE_ASSIGNED);

  // The real agent's rows take their place; its run ends as it reports.
  h.Send(&real, StateEvent("real", assignment, 2, v1::SCENARIO_STATE_RUNNING));
  h.Send(&real, RowsEvent("real", assignment, 3, 0, 3, 1.5));
  h.Complete(&real, "real", assignment, 4);
  CHECK(h.Job(job).state() == v1::JOB_STATE_SUCCEEDED);
  v1::ListRequestsRequest list;
  list.set_job_id(job);
  absl::StatusOr<v1::ListRequestsResponse> rows = h.manager->ListRequests(list);
  REQUIRE(rows.ok());
  REQUIRE(rows->scenarios_size() == 1);
  CHECK(rows->scenarios(0).agent_id() == "real");
  REQUIRE(rows->scenarios(0).records().rows_size() == 3);
  for (const v1::RequestRow& row : rows->scenarios(0).records().rows()) CHECK(row.sent_s() == 1.5);

  // After the job: the rogue still cannot add a line to it.
  failed.set_seq(6);
  h.Send(&rogue, failed);
  CHECK(rogue.LastAck() == 6);
  for (const v1::Event& event : Stored(h, job)) {
    CHECK(event.agent_id() != "rogue");
    CHECK_FALSE(event.has_alert());
  }
  CHECK(h.Job(job).state() == v1::JOB_STATE_SUCCEEDED);
}

TEST_CASE("a superseded attempt's late events count only from the agent it was assigned to",
          "[job_manager][agent_events]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {4}));
  FakeAgentChannel first;
  h.Register(&first, Registration("a", false));
  const v1::Assignment attempt1 = first.Assignments().at(0);
  h.Send(&first, StateEvent("a", attempt1, 1, v1::SCENARIO_STATE_RUNNING));
  h.manager->OnDisconnect(&first);
  h.loop.AdvanceTime(absl::Seconds(5));  // lost, requeued
  FakeAgentChannel second;
  h.Register(&second, Registration("b", false));
  const v1::Assignment attempt2 = second.Assignments().at(0);
  REQUIRE(attempt2.attempt() == 2);

  // b speaks for attempt 2 only; a's late line of attempt 1 is stored (not applied).
  h.Send(&second, StateEvent("b", attempt1, 1, v1::SCENARIO_STATE_SUCCEEDED));
  CHECK(h.manager->stats().refused_not_owner == 1);
  FakeAgentChannel back;
  h.Register(&back, Registration("a", false));
  v1::Event late = StateEvent("a", attempt1, 2, v1::SCENARIO_STATE_UNSPECIFIED);
  late.mutable_log()->set_text("attempt 1 tearing down");
  h.Send(&back, late);
  h.Send(&back, StateEvent("a", attempt2, 3, v1::SCENARIO_STATE_SUCCEEDED));
  CHECK(h.manager->stats().refused_not_owner == 2);
  CHECK(back.LastAck() == 3);
  int late_lines = 0;
  for (const v1::Event& event : Stored(h, job)) late_lines += event.has_log() ? 1 : 0;
  CHECK(late_lines == 1);
  CHECK(h.Job(job).scenarios(0).state() == v1::SCENARIO_STATE_ASSIGNED);
  CHECK(h.Job(job).scenarios(0).agent_id() == "b");
}

TEST_CASE("event seqs out of range or out of order end the stream unacknowledged",
          "[job_manager][agent_events]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {4}));
  FakeAgentChannel channel;
  h.Register(&channel, Registration("a", false));
  const v1::Assignment assignment = channel.Assignments().at(0);
  const int64_t bad = GENERATE(int64_t{0}, int64_t{-7}, std::numeric_limits<int64_t>::max(),
                               (int64_t{1} << 62) + 1);
  const absl::Status status =
      SendRaw(h, &channel, StateEvent("a", assignment, bad, v1::SCENARIO_STATE_RUNNING));
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(status.message()), Catch::Contains("out of range"));
  CHECK(channel.LastAck() == -1);
  CHECK(h.manager->stats().refused_bad_seq == 1);
  CHECK(h.manager->stats().events_stored == 0);

  // The agent comes back: its acked_seq is what it was, and its events go on from there.
  h.manager->OnDisconnect(&channel);
  FakeAgentChannel again;
  v1::Register back = Registration("a", false);
  *back.add_running() = Holding(assignment);
  h.Register(&again, back);
  CHECK(again.sent.at(0).registered().acked_seq() == 0);
  h.Send(&again, StateEvent("a", assignment, 1, v1::SCENARIO_STATE_RUNNING));
  // A gap inside a stream ends it.
  const absl::Status gap =
      SendRaw(h, &again, StateEvent("a", assignment, 3, v1::SCENARIO_STATE_SUCCEEDED));
  CHECK(gap.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(gap.message()), Catch::Contains("expected 2"));
  CHECK(again.LastAck() == 1);
  CHECK(h.Job(job).scenarios(0).state() == v1::SCENARIO_STATE_RUNNING);
}

TEST_CASE("a stream's first event may skip past its acked_seq, never go back to it",
          "[job_manager][agent_events]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {4}));
  FakeAgentChannel channel;
  h.Register(&channel, Registration("a", false));
  const v1::Assignment assignment = channel.Assignments().at(0);
  h.Send(&channel, StateEvent("a", assignment, 1, v1::SCENARIO_STATE_RUNNING));
  // A refused event is acknowledged but not stored: the agent's spool moves past the store's.
  v1::Event alert = StateEvent("a", assignment, 2, v1::SCENARIO_STATE_UNSPECIFIED);
  alert.mutable_alert()->set_job_id(job);
  h.Send(&channel, alert);
  CHECK(channel.LastAck() == 2);
  h.manager->OnDisconnect(&channel);

  FakeAgentChannel again;
  v1::Register back = Registration("a", false);
  *back.add_running() = Holding(assignment);
  h.Register(&again, back);
  CHECK(again.sent.at(0).registered().acked_seq() == 1);
  const absl::Status replayed =
      SendRaw(h, &again, StateEvent("a", assignment, 1, v1::SCENARIO_STATE_RUNNING));
  CHECK(replayed.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(replayed.message()), Catch::Contains("at or below the acked_seq 1"));

  h.manager->OnDisconnect(&again);
  FakeAgentChannel third;
  h.Register(&third, back);
  h.Complete(&third, "a", assignment, 3);  // 3, after the refused 2
  CHECK(h.Job(job).state() == v1::JOB_STATE_SUCCEEDED);
}

TEST_CASE("an assignment its heartbeating agent never starts times out with the reason",
          "[job_manager][agent_events]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {4}));
  FakeAgentChannel silent;
  h.Register(&silent, Registration("a", false));
  const v1::Assignment assignment = silent.Assignments().at(0);
  v1::Heartbeat beat;
  beat.set_running_scenario_id(assignment.scenario().scenario_id());
  for (absl::Duration waited; waited < kDefaultAssignmentTimeout + absl::Seconds(2);
       waited += absl::Seconds(1)) {
    h.Heartbeat(&silent, beat);
    h.loop.AdvanceTime(absl::Seconds(1));
  }
  CHECK(h.manager->stats().assignments_timed_out == 1);
  const std::vector<v1::CancelScenario> cancels = silent.Cancels();
  REQUIRE(cancels.size() == 1);
  CHECK(cancels[0].attempt() == 1);
  CHECK_THAT(cancels[0].reason(), Catch::Contains("assignment_timeout_s"));
  const v1::ScenarioStatus scenario = h.Job(job).scenarios(0);
  CHECK(scenario.state() == v1::SCENARIO_STATE_PENDING);
  CHECK_THAT(scenario.error(), Catch::Contains("agent a did not start attempt 1 within 2m") &&
                                   Catch::Contains("requeued"));

  // Another agent starts it within the timeout: it runs on.
  FakeAgentChannel prompt;
  h.Register(&prompt, Registration("b", false));
  const v1::Assignment attempt2 = prompt.Assignments().at(0);
  h.Send(&prompt, StateEvent("b", attempt2, 1, v1::SCENARIO_STATE_RUNNING));
  for (int i = 0; i < 130; ++i) {
    h.Heartbeat(&prompt, beat);
    h.loop.AdvanceTime(absl::Seconds(1));
  }
  CHECK(h.Job(job).scenarios(0).state() == v1::SCENARIO_STATE_RUNNING);
  CHECK(h.manager->stats().assignments_timed_out == 1);
}

TEST_CASE("a running attempt whose events stop while its agent heartbeats times out",
          "[job_manager][agent_events]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {4}));
  FakeAgentChannel keeps_up;
  h.Register(&keeps_up, Registration("a", false));
  const v1::Assignment assignment = keeps_up.Assignments().at(0);
  int64_t seq = 1;
  h.Send(&keeps_up, StateEvent("a", assignment, seq++, v1::SCENARIO_STATE_RUNNING));
  v1::Heartbeat beat;
  beat.set_running_scenario_id(assignment.scenario().scenario_id());
  // A replica loading its weights for 15 minutes: a keepalive progress every 30 s keeps it (the
  // harness's agents heartbeat every second).
  for (absl::Duration waited; waited < absl::Minutes(15); waited += absl::Seconds(1)) {
    h.Heartbeat(&keeps_up, beat);
    if (waited % kScenarioKeepalivePeriod == absl::ZeroDuration()) {
      v1::Event keepalive = StateEvent("a", assignment, seq++, v1::SCENARIO_STATE_UNSPECIFIED);
      keepalive.mutable_progress()->set_phase(v1::SCENARIO_PHASE_STARTING_REPLICAS);
      h.Send(&keeps_up, keepalive);
    }
    h.loop.AdvanceTime(absl::Seconds(1));
  }
  CHECK(h.Job(job).scenarios(0).state() == v1::SCENARIO_STATE_RUNNING);
  CHECK(h.manager->stats().attempts_silent == 0);

  // Then only heartbeats: lost once the last event is over event_silence_timeout_s old.
  absl::Duration silent = kScenarioKeepalivePeriod;  // the last keepalive went at 14m30s
  while (h.Job(job).scenarios(0).state() == v1::SCENARIO_STATE_RUNNING &&
         silent < kDefaultEventSilenceTimeout + absl::Minutes(1)) {
    h.Heartbeat(&keeps_up, beat);
    h.loop.AdvanceTime(absl::Seconds(1));
    silent += absl::Seconds(1);
  }
  CHECK(silent > kDefaultEventSilenceTimeout);
  CHECK(silent <= kDefaultEventSilenceTimeout + absl::Seconds(2));
  CHECK(h.manager->stats().attempts_silent == 1);
  const std::vector<v1::CancelScenario> cancels = keeps_up.Cancels();
  REQUIRE(cancels.size() == 1);
  CHECK(cancels[0].attempt() == 1);
  const v1::ScenarioStatus scenario = h.Job(job).scenarios(0);
  CHECK(scenario.state() == v1::SCENARIO_STATE_PENDING);
  CHECK_THAT(scenario.error(), Catch::Contains("no event from agent a about attempt 1 for 10m") &&
                                   Catch::Contains("(event_silence_timeout_s)") &&
                                   Catch::Contains("requeued"));
}

}  // namespace
}  // namespace kvbench::controller
