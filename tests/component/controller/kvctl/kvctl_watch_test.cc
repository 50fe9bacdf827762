// kvctl watch and submit --watch against a fake Controller: plain lines per state or phase
// change, a broken stream resumed after the last position seen with nothing printed twice, and
// the exit code from the job's outcome.

#include <catch2/catch.hpp>
#include <sstream>

#include "controller/kvctl/commands/watch_command.h"
#include "tests/component/controller/kvctl/fake_controller.h"
#include "tests/component/controller/kvctl/kvctl_test_helpers.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {
namespace {

std::map<std::string, std::string> EnvWithToken(const FakeController& controller) {
  return {{"KV_CONTROLLER", controller.address()}, {"KV_INSECURE", "1"}, {"KV_TOKEN", "t0k"}};
}

v1::Job MakeJob(v1::JobState state) {
  v1::Job job;
  job.set_job_id("job-1");
  job.mutable_spec()->set_name("t");
  job.mutable_spec()->set_model("m");
  job.mutable_spec()->set_replicas(1);
  job.set_state(state);
  v1::ScenarioStatus* scenario = job.add_scenarios();
  scenario->mutable_scenario()->set_scenario_id("00-gpu-c2");
  scenario->mutable_scenario()->set_tier(v1::GPU);
  scenario->mutable_scenario()->set_concurrency(2);
  return job;
}

v1::WatchJobResponse At(int64_t position, v1::JobState state) {
  v1::WatchJobResponse response;
  response.set_position(position);
  response.set_job_state(state);
  response.mutable_event()->set_job_id("job-1");
  response.mutable_event()->set_scenario_id("00-gpu-c2");
  return response;
}

v1::WatchJobResponse StateAt(int64_t position, v1::ScenarioState state, v1::JobState job_state,
                             const std::string& reason = "") {
  v1::WatchJobResponse response = At(position, job_state);
  response.mutable_event()->mutable_state_change()->set_state(state);
  response.mutable_event()->mutable_state_change()->set_reason(reason);
  return response;
}

v1::WatchJobResponse ProgressAt(int64_t position, v1::ScenarioPhase phase, int64_t requests) {
  v1::WatchJobResponse response = At(position, v1::JOB_STATE_RUNNING);
  response.mutable_event()->mutable_progress()->set_phase(phase);
  response.mutable_event()->mutable_progress()->set_requests_done(requests);
  return response;
}

v1::WatchJobResponse SampleAt(int64_t position) {
  v1::WatchJobResponse response = At(position, v1::JOB_STATE_RUNNING);
  response.mutable_event()->mutable_sample()->set_kind("periodic");
  return response;
}

TEST_CASE("kvctl watch resumes a cut stream after the last position, printing nothing twice") {
  FakeController controller;
  controller.SetJob(MakeJob(v1::JOB_STATE_RUNNING));
  FakeController::WatchScript cut;
  cut.responses = {StateAt(1, v1::SCENARIO_STATE_ASSIGNED, v1::JOB_STATE_RUNNING),
                   ProgressAt(2, v1::SCENARIO_PHASE_RESOLVING, 0),
                   ProgressAt(3, v1::SCENARIO_PHASE_REPLAY, 5)};
  cut.end = grpc::Status(grpc::StatusCode::UNAVAILABLE, "controller restarting");
  FakeController::WatchScript rest;
  // The server repeats position 3 (as one that resumes at-least-once might): taken once.
  rest.responses = {ProgressAt(3, v1::SCENARIO_PHASE_REPLAY, 5),
                    ProgressAt(4, v1::SCENARIO_PHASE_REPLAY, 9), SampleAt(5),
                    StateAt(6, v1::SCENARIO_STATE_SUCCEEDED, v1::JOB_STATE_SUCCEEDED)};
  v1::Job done = MakeJob(v1::JOB_STATE_SUCCEEDED);
  done.mutable_scenarios(0)->set_state(v1::SCENARIO_STATE_SUCCEEDED);
  done.mutable_scenarios(0)->mutable_result()->mutable_latency()->set_ttft_p50_s(0.0211);
  rest.job_when_done = done;
  controller.AddWatchScript(cut);
  controller.AddWatchScript(rest);

  KvctlRun run = RunKvctl({"watch", "job-1"}, EnvWithToken(controller));
  INFO(run.out << run.err);
  CHECK(run.exit_code == 0);
  std::vector<v1::WatchJobRequest> watches = controller.watches();
  REQUIRE(watches.size() == 2);
  CHECK(watches[0].after_position() == 0);
  CHECK(watches[1].after_position() == 3);
  CHECK(watches[1].job_id() == "job-1");
  CHECK(Count(run.out, "00-gpu-c2      assigned") == 1);
  CHECK(Count(run.out, "resolving") == 1);
  // One line per phase change, not per progress event or sample.
  CHECK(Count(run.out, " replay ") == 1);
  CHECK(Count(run.out, "5 requests") == 1);
  CHECK(Count(run.out, "9 requests") == 0);
  CHECK(Count(run.out, "00-gpu-c2      succeeded") == 1);
  CHECK(run.out.find("job job-1 succeeded") != std::string::npos);
  CHECK(run.out.find("21.1") != std::string::npos);  // the results table at the end
  CHECK(run.err.find("resuming after event 3") != std::string::npos);
  // Every call, the stream's included, carries the token.
  for (const std::string& authorization : controller.authorizations()) {
    CHECK(authorization == "Bearer t0k");
  }
}

// From the controller's or an agent's side, about an attempt.
v1::WatchJobResponse Sent(v1::WatchJobResponse response, const std::string& agent, int attempt) {
  response.mutable_event()->set_agent_id(agent);
  response.mutable_event()->set_attempt(attempt);
  return response;
}

// Issue #36: what the state machine ignored is not shown, and every line names its attempt.
TEST_CASE("kvctl watch shows what was applied, each line with its attempt") {
  FakeController controller;
  controller.SetJob(MakeJob(v1::JOB_STATE_RUNNING));
  FakeController::WatchScript script;
  const v1::JobState running = v1::JOB_STATE_RUNNING;
  v1::WatchJobResponse late_log = Sent(At(6, running), "a", 1);
  late_log.mutable_event()->mutable_log()->set_severity(v1::LogLine::ERROR);
  late_log.mutable_event()->mutable_log()->set_text("attempt 1 teardown");
  v1::WatchJobResponse forged_alert = Sent(At(9, v1::JOB_STATE_SUCCEEDED), "a", 2);
  forged_alert.mutable_event()->mutable_alert()->set_job_id("job-1");
  script.responses = {
      Sent(StateAt(1, v1::SCENARIO_STATE_ASSIGNED, running, "assigned to a (attempt 1)"),
           "controller", 1),
      Sent(StateAt(2, v1::SCENARIO_STATE_RUNNING, running), "a", 1),
      Sent(StateAt(3, v1::SCENARIO_STATE_LOST, running, "agent a silent; requeued"), "controller",
           1),
      Sent(StateAt(4, v1::SCENARIO_STATE_ASSIGNED, running, "assigned to a (attempt 2)"),
           "controller", 2),
      // Attempt 1's late end and log line: stored, never applied.
      Sent(StateAt(5, v1::SCENARIO_STATE_FAILED, running, "late attempt 1 failure"), "a", 1),
      late_log, Sent(StateAt(7, v1::SCENARIO_STATE_SUCCEEDED, v1::JOB_STATE_SUCCEEDED), "a", 2),
      // After its end: a forged failure and an agent's alert.
      Sent(StateAt(8, v1::SCENARIO_STATE_FAILED, v1::JOB_STATE_SUCCEEDED, "INJECTED FAILURE"), "a",
           2),
      forged_alert};
  v1::Job done = MakeJob(v1::JOB_STATE_SUCCEEDED);
  done.mutable_scenarios(0)->set_state(v1::SCENARIO_STATE_SUCCEEDED);
  script.job_when_done = done;
  controller.AddWatchScript(script);
  KvctlRun run = RunKvctl({"watch", "job-1"}, EnvWithToken(controller));
  INFO(run.out << run.err);
  CHECK(run.exit_code == 0);
  CHECK(Count(run.out, "00-gpu-c2 #1   assigned: assigned to a (attempt 1)") == 1);
  CHECK(Count(run.out, "00-gpu-c2 #1   lost: agent a silent; requeued") == 1);
  CHECK(Count(run.out, "00-gpu-c2 #2   assigned") == 1);
  CHECK(Count(run.out, "00-gpu-c2 #2   succeeded") == 1);
  CHECK(Count(run.out, "late attempt 1") == 0);
  CHECK(Count(run.out, "attempt 1 teardown") == 0);
  CHECK(Count(run.out, "INJECTED FAILURE") == 0);
  CHECK(Count(run.out, "REGRESSION") == 0);
}

TEST_CASE("kvctl watch exits non-zero when the job fails or is cancelled") {
  FakeController controller;
  controller.SetJob(MakeJob(v1::JOB_STATE_RUNNING));
  FakeController::WatchScript script;
  v1::JobState final_state = GENERATE(v1::JOB_STATE_FAILED, v1::JOB_STATE_CANCELLED);
  script.responses = {StateAt(1, v1::SCENARIO_STATE_FAILED, final_state, "replica-0 died")};
  v1::Job done = MakeJob(final_state);
  done.set_error("1 scenario failed");
  script.job_when_done = done;
  controller.AddWatchScript(script);
  KvctlRun run = RunKvctl({"watch", "job-1"}, EnvWithToken(controller));
  CHECK(run.out.find("00-gpu-c2      failed: replica-0 died") != std::string::npos);
  if (final_state == v1::JOB_STATE_FAILED) {
    CHECK(run.exit_code == 5);  // ABORTED
    CHECK(run.err.find("job job-1 failed: 1 scenario failed") != std::string::npos);
  } else {
    CHECK(run.exit_code == 7);  // CANCELLED
  }
}

// A job that succeeded with an invalid comparison is not a success for a script.
TEST_CASE("kvctl watch exits 8 when the job succeeded but a comparison is invalid") {
  FakeController controller;
  controller.SetJob(MakeJob(v1::JOB_STATE_RUNNING));
  FakeController::WatchScript script;
  script.responses = {StateAt(1, v1::SCENARIO_STATE_SUCCEEDED, v1::JOB_STATE_SUCCEEDED, "")};
  v1::Job done = MakeJob(v1::JOB_STATE_SUCCEEDED);
  v1::Validity* invalid = done.add_validity();
  invalid->set_comparison_group("c16");
  invalid->set_verdict(v1::VERDICT_INVALID);
  v1::Validity* valid = done.add_validity();
  valid->set_comparison_group("c2");
  valid->set_verdict(v1::VERDICT_VALID);
  script.job_when_done = done;
  controller.AddWatchScript(script);
  KvctlRun run = RunKvctl({"watch", "job-1"}, EnvWithToken(controller));
  CHECK(run.exit_code == 8);
  CHECK(run.err.find("job job-1 ended but comparison c16 is invalid (the verdict says why)") !=
        std::string::npos);
}

TEST_CASE("kvctl watch gives up after a bounded number of resumes") {
  FakeController controller;  // no scripts: every stream is UNAVAILABLE at once
  controller.SetJob(MakeJob(v1::JOB_STATE_RUNNING));
  client::ControllerConnection connection;
  connection.address = controller.address();
  connection.insecure = true;
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
      client::ControllerClient::Connect(connection);
  REQUIRE(client.ok());
  std::ostringstream out, err;
  kvctl::KvctlContext context;
  context.out = &out;
  context.err = &err;
  kvctl::WatchOptions options;
  options.initial_backoff = absl::Milliseconds(1);
  options.max_backoff = absl::Milliseconds(4);
  absl::Status status = kvctl::WatchJobToEnd(**client, "job-1", &context, nullptr, options);
  CHECK(status.code() == absl::StatusCode::kUnavailable);
  CHECK(status.message().find("lost the controller after 5 resumes") != std::string::npos);
  CHECK(controller.watches().size() == 6);  // the first try and 5 resumes
  CHECK(Count(err.str(), "resuming after event 0") == 5);
}

TEST_CASE("kvctl watch of an unknown job exits 3") {
  FakeController controller;
  CHECK(RunKvctl({"watch", "nope"}, EnvWithToken(controller)).exit_code == 3);
}

TEST_CASE("kvctl submit --watch follows the job it submitted") {
  FakeController controller;
  TempDir dir;
  const std::string spec = dir.WriteFile("s.json", R"({"name": "t", "model": "m",
      "build": "AMD", "engine": "vllm", "tiers": ["GPU"], "dataset": {"code": "sammshen"},
      "num_rounds": 2, "concurrency": [2]})");
  v1::SubmitJobResponse submitted;
  submitted.set_job_id("job-1");
  controller.SetSubmitResponse(submitted);
  controller.SetJob(MakeJob(v1::JOB_STATE_QUEUED));
  FakeController::WatchScript script;
  script.responses = {StateAt(1, v1::SCENARIO_STATE_SUCCEEDED, v1::JOB_STATE_SUCCEEDED)};
  script.job_when_done = MakeJob(v1::JOB_STATE_SUCCEEDED);
  controller.AddWatchScript(script);
  KvctlRun run = RunKvctl({"submit", spec, "--watch"}, EnvWithToken(controller));
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("job job-1: 0 scenarios") == 0);
  CHECK(run.out.find("job job-1 succeeded") != std::string::npos);
  REQUIRE(controller.watches().size() == 1);
  CHECK(controller.watches()[0].job_id() == "job-1");
}

}  // namespace
}  // namespace kvbench::testing
