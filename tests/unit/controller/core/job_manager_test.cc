// JobManager on a stepped loop and a fake clock, with a real SQLite store in a temp dir: jobs
// placed by capability, events stored once and applied, lost agents requeued up to the limit, a
// restart from the store, cancels and watchers.

#include "controller/core/job_manager.h"

#include <catch2/catch.hpp>
#include <memory>

#include "tests/unit/controller/core/fake_agent_channel.h"
#include "tests/unit/controller/core/job_manager_harness.h"

namespace kvbench::controller {
namespace {

using testing::FakeAgentChannel;
using Harness = JobManagerHarness;

TEST_CASE("a sweep is spread over agents by capability, one scenario per agent", "[job_manager]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU, v1::NVME}, {2}));
  FakeAgentChannel plain, with_nvme;
  h.Register(&plain, Registration("agent-plain", /*nvme=*/false));
  h.Register(&with_nvme, Registration("agent-nvme", /*nvme=*/true));

  // The NVME scenario can only go to the agent with an NVMe cache dir; the GPU one to the other.
  REQUIRE(plain.Assignments().size() == 1);
  REQUIRE(with_nvme.Assignments().size() == 1);
  CHECK(plain.Assignments()[0].scenario().tier() == v1::GPU);
  CHECK(with_nvme.Assignments()[0].scenario().tier() == v1::NVME);
  CHECK(plain.Assignments()[0].attempt() == 1);
  CHECK(h.Job(job).state() == v1::JOB_STATE_RUNNING);

  h.Complete(&plain, "agent-plain", plain.Assignments()[0], 1);
  h.Complete(&with_nvme, "agent-nvme", with_nvme.Assignments()[0], 1);
  v1::Job done = h.Job(job);
  CHECK(done.state() == v1::JOB_STATE_SUCCEEDED);
  CHECK(done.end_unix_ms() >= done.start_unix_ms());
  for (const v1::ScenarioStatus& scenario : done.scenarios()) {
    CHECK(scenario.state() == v1::SCENARIO_STATE_SUCCEEDED);
    CHECK(scenario.result().sessions().achieved() == 2);
  }
  CHECK(plain.LastAck() == 3);
  // GetJob carries the comparison's verdict once the results are in.
  REQUIRE(done.validity_size() == 1);
  CHECK(done.validity(0).comparison_group() == "c2");
  CHECK(done.validity(0).verdict() != v1::VERDICT_UNSPECIFIED);
}

TEST_CASE("a scheduling round looks only at pending scenarios, not at finished jobs",
          "[job_manager]") {
  Harness h;
  FakeAgentChannel channel;
  h.Register(&channel, Registration("a", false));
  int64_t seq = 1;
  for (int i = 0; i < 3; ++i) {
    const std::string done = h.Submit(SimSpec({v1::GPU}, {2, 4}));
    for (int scenario = 0; scenario < 2; ++scenario) {
      seq = h.Complete(&channel, "a", channel.Assignments().back(), seq);
    }
    REQUIRE(h.Job(done).state() == v1::JOB_STATE_SUCCEEDED);
  }
  const int64_t rounds = h.manager->stats().scheduling_rounds;
  h.Submit(SimSpec({v1::GPU}, {2, 4}));
  // Six finished scenarios in the store; the round after the submit saw the two new ones only.
  CHECK(h.manager->stats().scheduling_rounds == rounds + 1);
  CHECK(h.manager->stats().last_round_scenarios_visited == 2);
  CHECK(channel.Assignments().size() == 7);
}

TEST_CASE("an event sent twice on a stream ends the stream and is applied once", "[job_manager]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {4}));
  FakeAgentChannel channel;
  h.Register(&channel, Registration("a", false));
  const v1::Assignment assignment = channel.Assignments().at(0);
  h.Send(&channel, StateEvent("a", assignment, 1, v1::SCENARIO_STATE_RUNNING));
  v1::AgentMessage again_on_it;
  *again_on_it.mutable_event() = StateEvent("a", assignment, 1, v1::SCENARIO_STATE_RUNNING);
  const absl::Status refused = h.manager->OnAgentMessage(&channel, again_on_it);
  CHECK(refused.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(refused.message()), Catch::Contains("seqs must be contiguous"));
  h.loop.RunUntilIdle();
  CHECK(channel.LastAck() == 1);
  CHECK(h.manager->stats().events_stored == 1);
  CHECK(h.manager->stats().refused_bad_seq == 1);

  // The stream breaks and the agent comes back within the timeout, still running it: it keeps
  // the scenario and learns where to resume.
  h.manager->OnDisconnect(&channel);
  FakeAgentChannel again;
  v1::Register back = Registration("a", false);
  *back.add_running() = Holding(assignment);
  h.Register(&again, back);
  REQUIRE(again.sent.at(0).has_registered());
  CHECK(again.sent.at(0).registered().acked_seq() == 1);
  CHECK(again.Assignments().empty());
  h.Complete(&again, "a", assignment, 2);
  CHECK(h.Job(job).state() == v1::JOB_STATE_SUCCEEDED);
  CHECK(h.Job(job).scenarios(0).attempt() == 1);
}

TEST_CASE("an agent gone for good has its scenario requeued, then failed past the limit",
          "[job_manager]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {4}));
  FakeAgentChannel first;
  h.Register(&first, Registration("first", false));
  REQUIRE(first.Assignments().size() == 1);
  h.manager->OnDisconnect(&first);
  h.loop.AdvanceTime(absl::Seconds(2));
  CHECK(h.Job(job).scenarios(0).state() == v1::SCENARIO_STATE_ASSIGNED);  // still waiting
  h.loop.AdvanceTime(absl::Seconds(3));
  v1::ScenarioStatus lost = h.Job(job).scenarios(0);
  CHECK(lost.state() == v1::SCENARIO_STATE_PENDING);
  CHECK_THAT(lost.error(), Catch::Contains("silent") && Catch::Contains("requeued"));

  // Another agent takes it as attempt 2; it goes silent too (no heartbeats): the limit is 2.
  FakeAgentChannel second;
  h.Register(&second, Registration("second", false));
  REQUIRE(second.Assignments().size() == 1);
  CHECK(second.Assignments()[0].attempt() == 2);
  h.loop.AdvanceTime(absl::Seconds(5));
  CHECK_FALSE(second.closed.ok());  // its stream is ended for missed heartbeats
  v1::Job failed = h.Job(job);
  CHECK(failed.state() == v1::JOB_STATE_FAILED);
  CHECK(failed.scenarios(0).state() == v1::SCENARIO_STATE_FAILED);
  CHECK_THAT(failed.error(), Catch::Contains("failed after 2 attempts"));
}

// The agent is silent past the timeout (SIGSTOP, a partition) and comes back
// still running attempt 1, which was requeued meanwhile and goes to the same agent as attempt 2.
// Attempt 1's late events are stored (the agent's seqs stay contiguous) but move nothing: not
// its cancel (the job ended CANCELLED), not its success (attempt 1's result stored while attempt 2
// ran on).
TEST_CASE("late events of a superseded attempt are stored, counted and never applied",
          "[job_manager]") {
  const bool first_ends_cancelled = GENERATE(true, false);
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {4}));
  FakeAgentChannel before;
  h.Register(&before, Registration("a", false));
  const v1::Assignment attempt1 = before.Assignments().at(0);
  h.Send(&before, StateEvent("a", attempt1, 1, v1::SCENARIO_STATE_RUNNING));
  v1::Event progress = StateEvent("a", attempt1, 2, v1::SCENARIO_STATE_UNSPECIFIED);
  progress.mutable_progress()->set_phase(v1::SCENARIO_PHASE_REPLAY);
  progress.mutable_progress()->set_sessions_done(1);
  h.Send(&before, progress);
  REQUIRE(h.Job(job).scenarios(0).progress().sessions_done() == 1);
  h.loop.AdvanceTime(absl::Seconds(5));  // silent past the 3 s timeout: lost, requeued
  // Requeued, it shows no agent and no progress (not the lost attempt's).
  const v1::ScenarioStatus requeued = h.Job(job).scenarios(0);
  REQUIRE(requeued.state() == v1::SCENARIO_STATE_PENDING);
  CHECK(requeued.agent_id().empty());
  CHECK_FALSE(requeued.has_progress());

  FakeAgentChannel after;
  v1::Register back = Registration("a", false);
  *back.add_running() = Holding(attempt1);
  h.Register(&after, back);
  // The agent is told to stop attempt 1 (exactly that attempt) and given attempt 2.
  const std::vector<v1::CancelScenario> cancels = after.Cancels();
  REQUIRE(cancels.size() == 1);
  CHECK(cancels[0].job_id() == job);
  CHECK(cancels[0].scenario_id() == attempt1.scenario().scenario_id());
  CHECK(cancels[0].attempt() == 1);
  REQUIRE(after.Assignments().size() == 1);
  const v1::Assignment attempt2 = after.Assignments()[0];
  CHECK(attempt2.attempt() == 2);

  // Attempt 1 ends late, either way, with a result that must not be stored.
  int64_t seq = 3;
  if (first_ends_cancelled) {
    h.Send(&after, StateEvent("a", attempt1, seq++, v1::SCENARIO_STATE_CANCELLED));
  } else {
    v1::Event stale_result = ResultEvent("a", attempt1, seq++);
    stale_result.mutable_result()->mutable_latency()->set_ttft_p50_s(17.2);
    h.Send(&after, stale_result);
    h.Send(&after, StateEvent("a", attempt1, seq++, v1::SCENARIO_STATE_SUCCEEDED));
  }
  const int64_t stale = seq - 3;
  CHECK(h.manager->stats().events_stale == stale);
  CHECK(after.LastAck() == seq - 1);  // acknowledged all the same
  v1::Job running = h.Job(job);
  CHECK(running.state() == v1::JOB_STATE_RUNNING);
  CHECK(running.scenarios(0).state() == v1::SCENARIO_STATE_ASSIGNED);
  CHECK(running.scenarios(0).attempt() == 2);
  CHECK_FALSE(running.scenarios(0).has_result());

  // Attempt 2 finishes: its result is the one stored.
  h.Send(&after, StateEvent("a", attempt2, seq++, v1::SCENARIO_STATE_RUNNING));
  v1::Event result = ResultEvent("a", attempt2, seq++);
  result.mutable_result()->mutable_latency()->set_ttft_p50_s(15.6);
  h.Send(&after, result);
  h.Send(&after, StateEvent("a", attempt2, seq++, v1::SCENARIO_STATE_SUCCEEDED));
  v1::Job done = h.Job(job);
  CHECK(done.state() == v1::JOB_STATE_SUCCEEDED);
  CHECK(done.scenarios(0).attempt() == 2);
  CHECK(done.scenarios(0).result().latency().ttft_p50_s() == 15.6);
  CHECK(h.manager->stats().events_stale == stale);
  CHECK(h.manager->stats().events_stored == seq - 1);  // every agent event kept, none twice
}

TEST_CASE("an agent that restarted without its scenario gets it requeued at once",
          "[job_manager]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {4}));
  FakeAgentChannel before;
  h.Register(&before, Registration("a", false));
  h.manager->OnDisconnect(&before);
  FakeAgentChannel after;
  h.Register(&after, Registration("a", false));  // holds nothing
  REQUIRE(after.Assignments().size() == 1);
  CHECK(after.Assignments()[0].attempt() == 2);
  CHECK(h.Job(job).scenarios(0).state() == v1::SCENARIO_STATE_ASSIGNED);
}

TEST_CASE("a controller restarted from its store keeps jobs, results and running scenarios",
          "[job_manager]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {2, 4}));
  FakeAgentChannel channel;
  h.Register(&channel, Registration("a", false));
  const v1::Assignment first = channel.Assignments().at(0);
  int64_t seq = h.Complete(&channel, "a", first, 1);
  const v1::Assignment second = channel.Assignments().at(1);
  h.Send(&channel, StateEvent("a", second, seq++, v1::SCENARIO_STATE_RUNNING));

  h.Restart();
  v1::Job recovered = h.Job(job);
  CHECK(recovered.state() == v1::JOB_STATE_RUNNING);
  CHECK(recovered.scenarios(0).state() == v1::SCENARIO_STATE_SUCCEEDED);
  CHECK(recovered.scenarios(0).result().sessions().achieved() == 2);
  CHECK(recovered.scenarios(1).state() == v1::SCENARIO_STATE_RUNNING);

  // The agent reconnects still running the second scenario and finishes it.
  FakeAgentChannel back;
  v1::Register message = Registration("a", false);
  *message.add_running() = Holding(second);
  h.Register(&back, message);
  CHECK(back.sent.at(0).registered().acked_seq() == seq - 1);
  CHECK(back.Assignments().empty());
  h.Complete(&back, "a", second, seq);
  CHECK(h.Job(job).state() == v1::JOB_STATE_SUCCEEDED);
}

TEST_CASE("cancel stops a running scenario on its agent and ends the job", "[job_manager]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {2, 4}));
  FakeAgentChannel channel;
  h.Register(&channel, Registration("a", false));
  v1::CancelJobRequest request;
  request.set_job_id(job);
  request.set_reason("wrong model");
  absl::StatusOr<v1::Job> cancelled = h.manager->CancelJob(request);
  REQUIRE(cancelled.ok());
  h.loop.RunUntilIdle();
  CHECK(cancelled->state() == v1::JOB_STATE_CANCELLED);
  bool cancel_sent = false;
  for (const auto& message : channel.sent) cancel_sent |= message.has_cancel();
  CHECK(cancel_sent);
  CHECK(absl::IsFailedPrecondition(h.manager->CancelJob(request).status()));
  // The agent reports idle: it is free again and nothing of the cancelled job is assigned.
  v1::Heartbeat idle;
  h.Heartbeat(&channel, idle);
  h.loop.RunUntilIdle();
  CHECK(channel.Assignments().size() == 1);
  CHECK(h.manager->ListAgents().agents(0).running_scenario_id().empty());
}

// An agent's free NVMe space is refreshed by every heartbeat, and NVME placement
// follows what is free now (it was the figure from registration).
TEST_CASE("heartbeats refresh an agent's free NVMe space and placement follows it",
          "[job_manager]") {
  Harness h;
  FakeAgentChannel channel;
  // A real vLLM node: the scheduler judges NVMe space for real engines (the simulator's pool
  // files are scaled down).
  v1::Register node = Registration("a", /*nvme=*/true);
  node.mutable_capabilities()->add_profiles("vllm-nvidia");
  node.mutable_capabilities()->add_profiles("lmcache-nvme");
  v1::GpuInfo* gpu = node.mutable_capabilities()->add_gpus();
  gpu->set_vendor(v1::NVIDIA);
  gpu->set_memory_bytes(int64_t{141} << 30);
  h.Register(&channel, node);
  v1::JobSpec spec = SimSpec({v1::NVME}, {2});
  spec.set_engine(v1::VLLM);
  spec.set_build(v1::NVIDIA);
  spec.set_replicas(1);
  spec.clear_engine_overrides();
  v1::Heartbeat full;
  full.set_nvme_free_bytes(int64_t{1} << 20);  // 1 MiB: under any pool
  h.Heartbeat(&channel, full);
  CHECK(h.manager->ListAgents().agents(0).capabilities().nvme_free_bytes() == int64_t{1} << 20);
  h.Submit(spec);
  h.loop.RunUntilIdle();
  CHECK(channel.Assignments().empty());
  v1::Heartbeat freed;
  freed.set_nvme_free_bytes(int64_t{1} << 40);
  h.Heartbeat(&channel, freed);
  h.loop.RunUntilIdle();
  CHECK(channel.Assignments().size() == 1);
  // A heartbeat without the field (a node without an NVMe dir, an older agent) changes nothing.
  h.Heartbeat(&channel, v1::Heartbeat());
  CHECK(h.manager->ListAgents().agents(0).capabilities().nvme_free_bytes() == int64_t{1} << 40);
}

// The platform's per-job timeout bounds a run. The job below runs on an agent that
// stays alive (it heartbeats) but never finishes; at max_duration_s its running scenario is
// stopped on the agent and every unfinished scenario FAILS with that reason.
TEST_CASE("a job past its max_duration_s fails its unfinished scenarios", "[job_manager]") {
  Harness h;
  v1::JobSpec spec = SimSpec({v1::GPU}, {2, 4});
  spec.set_max_duration_s(10);
  const std::string job = h.Submit(spec);
  FakeAgentChannel channel;
  h.Register(&channel, Registration("a", false));
  const v1::Assignment running = channel.Assignments().at(0);
  h.Send(&channel, StateEvent("a", running, 1, v1::SCENARIO_STATE_RUNNING));
  v1::Heartbeat busy;
  busy.set_running_scenario_id(running.scenario().scenario_id());
  for (int second = 0; second < 9; ++second) {
    h.Heartbeat(&channel, busy);
    h.loop.AdvanceTime(absl::Seconds(1));
  }
  CHECK(h.Job(job).state() == v1::JOB_STATE_RUNNING);  // 9 s: within the bound
  for (int second = 0; second < 3; ++second) {
    h.Heartbeat(&channel, busy);
    h.loop.AdvanceTime(absl::Seconds(1));
  }
  const v1::Job failed = h.Job(job);
  REQUIRE(failed.state() == v1::JOB_STATE_FAILED);
  CHECK_THAT(failed.error(), Catch::Contains("ran past its max_duration_s (10s from its start)"));
  for (const v1::ScenarioStatus& scenario : failed.scenarios()) {
    CHECK(scenario.state() == v1::SCENARIO_STATE_FAILED);
    CHECK_THAT(scenario.error(), Catch::Contains("max_duration_s"));
  }
  // The running attempt was told to stop.
  bool stopped = false;
  for (const v1::ControllerMessage& message : channel.sent) {
    stopped |= message.has_cancel() && message.cancel().attempt() == 1 &&
               message.cancel().scenario_id() == running.scenario().scenario_id();
  }
  CHECK(stopped);
}

TEST_CASE("watchers read from a position and are woken by new events", "[job_manager]") {
  Harness h;
  const std::string job = h.Submit(SimSpec({v1::GPU}, {2}));
  int woken = 0;
  h.manager->AddWatcher(job, [&] { ++woken; });
  FakeAgentChannel channel;
  h.Register(&channel, Registration("a", false));
  CHECK(woken == 1);  // the controller's "assigned" event
  WatchBatch all = *h.manager->WatchEvents(job, 0);
  REQUIRE(all.events.size() == 1);
  CHECK_FALSE(all.job_done);
  h.Complete(&channel, "a", channel.Assignments().at(0), 1);
  WatchBatch rest = *h.manager->WatchEvents(job, all.events.back().position());
  CHECK(rest.events.size() == 3);
  CHECK(rest.job_done);
  CHECK(rest.events.back().job_state() == v1::JOB_STATE_SUCCEEDED);
  CHECK(absl::IsNotFound(h.manager->WatchEvents("nope", 0).status()));
}

TEST_CASE("submits are validated, idempotent by request id (same spec), and listed newest first",
          "[job_manager]") {
  Harness h;
  v1::SubmitJobRequest bad;
  bad.mutable_spec()->set_name("x");
  absl::StatusOr<v1::SubmitJobResponse> refused = h.manager->SubmitJob(bad);
  CHECK(absl::IsInvalidArgument(refused.status()));

  v1::SubmitJobRequest request;
  *request.mutable_spec() = SimSpec({v1::GPU}, {2});
  request.set_request_id("nightly-2026-11-29");
  const std::string first = h.manager->SubmitJob(request)->job_id();
  CHECK(h.manager->SubmitJob(request)->job_id() == first);
  // The same key with another spec is not a retry: refused, naming the first job.
  v1::SubmitJobRequest reused = request;
  reused.mutable_spec()->set_concurrency(0, 4);
  absl::StatusOr<v1::SubmitJobResponse> clash = h.manager->SubmitJob(reused);
  REQUIRE(absl::IsAlreadyExists(clash.status()));
  CHECK(std::string(clash.status().message()) ==
        "request_id \"nightly-2026-11-29\" was already used for job " + first +
            " with a different spec");
  const std::string second = h.Submit(SimSpec({v1::GPU}, {2}));
  v1::ListJobsRequest list;
  list.set_page_size(1);
  v1::ListJobsResponse page = *h.manager->ListJobs(list);
  REQUIRE(page.jobs_size() == 1);
  CHECK(page.jobs(0).job_id() == second);
  list.set_page_token(page.next_page_token());
  page = *h.manager->ListJobs(list);
  REQUIRE(page.jobs_size() == 1);
  CHECK(page.jobs(0).job_id() == first);
  CHECK(page.next_page_token().empty());
}

}  // namespace
}  // namespace kvbench::controller
