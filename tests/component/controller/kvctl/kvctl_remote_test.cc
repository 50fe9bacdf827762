// kvctl's remote subcommands against a fake Controller on loopback: connection settings and the
// bearer token, exit codes from the controller's status codes, submit, jobs paging, status,
// results (the same table as `kvctl run`), cancel and agents.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_split.h"
#include "common/json/proto_json.h"
#include "controller/kvctl/hinting_controller_client.h"
#include "controller/kvctl/print/results_table.h"
#include "controller/kvctl/print/run_progress.h"
#include "tests/component/controller/kvctl/fake_controller.h"
#include "tests/component/controller/kvctl/kvctl_test_helpers.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {
namespace {

constexpr char kValidSpec[] = R"({"name": "t", "model": "m", "build": "AMD", "engine": "vllm",
    "tiers": ["NVME", "GPU"], "dataset": {"code": "sammshen"}, "num_rounds": 2,
    "concurrency": [16, 4], "labels": {"team": "kv"}})";

std::map<std::string, std::string> EnvFor(const FakeController& controller) {
  return {{"KV_CONTROLLER", controller.address()}, {"KV_INSECURE", "1"}};
}

v1::Scenario MakeScenario(const std::string& id, v1::Tier tier, int concurrency) {
  v1::Scenario scenario;
  scenario.set_scenario_id(id);
  scenario.set_job_id("job-1");
  scenario.set_tier(tier);
  scenario.set_concurrency(concurrency);
  scenario.set_sessions(concurrency);
  return scenario;
}

v1::ScenarioResult MakeResult(const v1::Scenario& scenario, double ttft_p50_s, bool full) {
  v1::ScenarioResult result;
  result.set_scenario_id(scenario.scenario_id());
  result.set_tier(scenario.tier());
  result.set_concurrency(scenario.concurrency());
  result.mutable_latency()->set_ttft_p50_s(ttft_p50_s);
  if (full) {
    result.mutable_latency()->set_ttft_p95_s(0.04567);
    result.mutable_latency()->set_ttft_degradation_median_pct(-12.34);
    result.mutable_latency()->set_requests_per_s(3.456);
  }
  result.mutable_sessions()->set_requested(scenario.concurrency());
  result.mutable_sessions()->set_achieved(scenario.concurrency());
  result.mutable_sessions()->set_failed_requests(full ? 1 : 0);
  return result;
}

// One scenario's end, as a fixture.
struct ScenarioOutcome {
  v1::Scenario scenario;
  absl::Status status;        // OK, or why it failed / was cancelled
  v1::ScenarioResult result;  // when OK
};

// Four scenarios of one job, as `kvctl run` ends them: two with results (one whose process
// died), one failed, one cancelled; concurrency out of order to exercise the grouping.
std::vector<ScenarioOutcome> RunOutcomes() {
  std::vector<ScenarioOutcome> outcomes(4);
  outcomes[0].scenario = MakeScenario("00-gpu-c4", v1::GPU, 4);
  outcomes[0].result = MakeResult(outcomes[0].scenario, 0.01234, true);
  outcomes[1].scenario = MakeScenario("01-cpu-ram-c4", v1::CPU_RAM, 4);
  outcomes[1].result = MakeResult(outcomes[1].scenario, 0.00789, false);
  outcomes[1].result.add_process_failures("replica-1 killed by signal 9");
  outcomes[2].scenario = MakeScenario("02-nvme-c4", v1::NVME, 4);
  outcomes[2].status = absl::AbortedError("replica-0 never became healthy");
  outcomes[3].scenario = MakeScenario("03-gpu-c2", v1::GPU, 2);
  outcomes[3].status = absl::CancelledError("cancelled");
  return outcomes;
}

// The same outcomes as the controller stores them.
v1::Job JobOf(const std::vector<ScenarioOutcome>& outcomes) {
  v1::Job job;
  job.set_job_id("job-1");
  job.mutable_spec()->set_name("t");
  job.set_state(v1::JOB_STATE_FAILED);
  for (const auto& outcome : outcomes) {
    v1::ScenarioStatus* status = job.add_scenarios();
    *status->mutable_scenario() = outcome.scenario;
    status->set_attempt(1);
    status->set_agent_id("agent-a");
    if (outcome.status.ok()) {
      status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
      *status->mutable_result() = outcome.result;
    } else {
      status->set_state(outcome.status.code() == absl::StatusCode::kCancelled
                            ? v1::SCENARIO_STATE_CANCELLED
                            : v1::SCENARIO_STATE_FAILED);
      status->set_error(std::string(outcome.status.message()));
    }
  }
  return job;
}

// The tier table `kvctl run` prints at its end (between its leading blank line and "results:").
std::string RunTable(const std::vector<ScenarioOutcome>& outcomes) {
  std::ostringstream out;
  kvctl::RunProgress progress(&out, /*terminal=*/false);
  progress.End(JobOf(outcomes));
  const std::string text = out.str();
  const size_t end = text.find("\nresults: ");
  REQUIRE(end != std::string::npos);
  return text.substr(1, end - 1);
}

TEST_CASE("kvctl remote commands say how to name the controller when none is known") {
  KvctlRun run = RunKvctl({"jobs"}, /*env=*/{});
  CHECK(run.exit_code == 2);
  CHECK(run.out.empty());
  CHECK(run.err.find("no controller: set KV_CONTROLLER or --controller") != std::string::npos);
}

TEST_CASE("The bearer token reaches the controller from KV_TOKEN or --token") {
  FakeController controller;
  controller.SetListJobsPage("", v1::ListJobsResponse());
  std::map<std::string, std::string> env = EnvFor(controller);
  env["KV_TOKEN"] = "from-env";
  REQUIRE(RunKvctl({"jobs"}, env).exit_code == 0);
  REQUIRE(RunKvctl({"jobs", "--token", "from-flag"}, env).exit_code == 0);
  // Flags alone, no environment.
  REQUIRE(RunKvctl({"jobs", "--controller", controller.address(), "--insecure"}, {}).exit_code ==
          0);
  CHECK(controller.authorizations() ==
        std::vector<std::string>{"Bearer from-env", "Bearer from-flag", ""});
}

TEST_CASE("kvctl exit codes follow the controller's status codes") {
  FakeController controller;
  SECTION("NOT_FOUND exits 3") {
    KvctlRun run = RunKvctl({"status", "nope"}, EnvFor(controller));
    CHECK(run.exit_code == 3);
    CHECK(run.err.find("no such job") != std::string::npos);
  }
  SECTION("UNAUTHENTICATED exits 6") {
    controller.SetUnaryError(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "bad token"));
    KvctlRun run = RunKvctl({"results", "job-1"}, EnvFor(controller));
    CHECK(run.exit_code == 6);
    CHECK(run.err.find("bad token") != std::string::npos);
  }
  SECTION("an unreachable controller exits 4 (retry)") {
    const std::string address = controller.address();
    KvctlRun run = RunKvctl({"agents", "--controller", "127.0.0.1:1", "--insecure"}, {});
    CHECK(run.exit_code == 4);
  }
}

// gRPC's own "failed to connect to all addresses" says neither where nor what to do: every
// command that connects says where it dialled and what to do.
TEST_CASE("kvctl says how to start a controller, or to use kvctl run, when none answers") {
  TempDir dir;
  const std::string spec = dir.WriteFile("spec.json", kValidSpec);
  const std::map<std::string, std::string> env = {{"KV_CONTROLLER", "127.0.0.1:1"},
                                                  {"KV_INSECURE", "1"}};
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"submit", spec, "--watch"},
                                             {"agents"},
                                             {"jobs"},
                                             {"status", "job-1"},
                                             {"schedule", "list"}}) {
    INFO(args[0]);
    KvctlRun run = RunKvctl(args, env);
    CHECK(run.exit_code == 4);
    CHECK_THAT(run.err, Catch::Contains("cannot reach the controller at 127.0.0.1:1 (") &&
                            Catch::Contains("Connection refused") &&
                            Catch::Contains("is kv-controller running there? Start one with "
                                            "`kv-controller --config "
                                            "deploy/examples/controller-local.json`") &&
                            Catch::Contains("`kvctl run SPEC.json`, which needs no controller"));
  }
}

TEST_CASE("The unreachable-controller hint goes only on UNAVAILABLE") {
  CHECK(kvctl::WithUnreachableControllerHint(absl::NotFoundError("no such job"), "h:1") ==
        absl::NotFoundError("no such job"));
  const absl::Status hinted =
      kvctl::WithUnreachableControllerHint(absl::UnavailableError("shutting down"), "h:1");
  CHECK(hinted.code() == absl::StatusCode::kUnavailable);
  CHECK_THAT(std::string(hinted.message()),
             Catch::StartsWith("cannot reach the controller at h:1 (shutting down): "));
}

TEST_CASE("kvctl submit sends the file's spec and prints the job id and its scenarios") {
  FakeController controller;
  TempDir dir;
  const std::string spec_path = dir.WriteFile("spec.json", kValidSpec);
  v1::SubmitJobResponse response;
  response.set_job_id("t-20261129-1");
  *response.add_scenarios() = MakeScenario("00-gpu-c4", v1::GPU, 4);
  *response.add_scenarios() = MakeScenario("03-nvme-c16", v1::NVME, 16);
  controller.SetSubmitResponse(response);

  KvctlRun run = RunKvctl({"submit", spec_path, "--request-id", "retry-key-1"}, EnvFor(controller));
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("job t-20261129-1: 2 scenarios") == 0);
  CHECK(run.out.find("03-nvme-c16  NVME") != std::string::npos);
  std::vector<v1::SubmitJobRequest> submits = controller.submits();
  REQUIRE(submits.size() == 1);
  v1::JobSpec from_file;
  REQUIRE(LoadProtoFromJsonFile(spec_path, &from_file).ok());
  CHECK(submits[0].spec().SerializeAsString() == from_file.SerializeAsString());
  CHECK(submits[0].request_id() == "retry-key-1");

  KvctlRun json = RunKvctl({"submit", spec_path, "-o", "json"}, EnvFor(controller));
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["job_id"] == "t-20261129-1");
}

TEST_CASE("kvctl submit checks the spec before any network") {
  FakeController controller;
  TempDir dir;
  const std::string bad = dir.WriteFile("bad.json", R"({"name": "t", "model": "m",
      "build": "AMD", "engine": "vllm", "tiers": [], "dataset": {"code": "sammshen"},
      "num_rounds": 0, "concurrency": [4]})");
  KvctlRun run = RunKvctl({"submit", bad}, EnvFor(controller));
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("tiers:") != std::string::npos);
  CHECK(run.err.find("num_rounds:") != std::string::npos);
  // Even with no controller known, the spec's errors come first.
  CHECK(RunKvctl({"submit", bad}, {}).err.find("tiers:") != std::string::npos);
  CHECK(controller.submits().empty());
  CHECK(controller.authorizations().empty());
}

TEST_CASE("kvctl jobs sends its filters and --all follows every page") {
  FakeController controller;
  auto job = [](const std::string& id, v1::JobState state) {
    v1::Job made;
    made.set_job_id(id);
    made.mutable_spec()->set_name("nightly");
    made.set_state(state);
    made.set_submit_unix_ms(1'800'000'000'000);
    return made;
  };
  v1::ListJobsResponse first, second;
  *first.add_jobs() = job("job-c", v1::JOB_STATE_RUNNING);
  *first.add_jobs() = job("job-b", v1::JOB_STATE_RUNNING);
  first.set_next_page_token("page-2");
  *second.add_jobs() = job("job-a", v1::JOB_STATE_SUCCEEDED);
  controller.SetListJobsPage("", first);
  controller.SetListJobsPage("page-2", second);

  KvctlRun all = RunKvctl({"jobs", "--all", "--state", "running", "--state", "SUCCEEDED", "--label",
                           "team=kv", "--name-prefix", "night", "--page-size", "2"},
                          EnvFor(controller));
  REQUIRE(all.exit_code == 0);
  CHECK(all.out.find("job-c") < all.out.find("job-b"));
  CHECK(all.out.find("job-b") < all.out.find("job-a"));
  CHECK(all.out.find("more:") == std::string::npos);
  std::vector<v1::ListJobsRequest> requests = controller.list_requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].page_token().empty());
  CHECK(requests[1].page_token() == "page-2");
  CHECK(requests[1].page_size() == 2);
  CHECK(requests[1].states_size() == 2);
  CHECK(requests[1].states(0) == v1::JOB_STATE_RUNNING);
  CHECK(requests[1].labels().at("team") == "kv");
  CHECK(requests[1].name_prefix() == "night");

  KvctlRun one = RunKvctl({"jobs"}, EnvFor(controller));
  CHECK(one.out.find("job-a") == std::string::npos);
  CHECK(one.out.find("more: --page-token page-2") != std::string::npos);

  KvctlRun json = RunKvctl({"jobs", "--all", "-o", "json"}, EnvFor(controller));
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["jobs"].size() == 3);

  CHECK(RunKvctl({"jobs", "--state", "sleeping"}, EnvFor(controller)).exit_code == 2);
  CHECK(RunKvctl({"jobs", "--label", "novalue"}, EnvFor(controller)).exit_code == 2);
}

TEST_CASE("kvctl results prints the same table as kvctl run for the same results") {
  FakeController controller;
  const std::vector<ScenarioOutcome> outcomes = RunOutcomes();
  controller.SetJob(JobOf(outcomes));
  const std::string run_table = RunTable(outcomes);
  // A sanity check of the fixture: grouped by concurrency, nulls as "-".
  CHECK(run_table.find("2  GPU") < run_table.find("4  GPU"));
  CHECK(run_table.find("12.3") != std::string::npos);
  CHECK(run_table.find("ok (process died)") != std::string::npos);

  KvctlRun table = RunKvctl({"results", "job-1"}, EnvFor(controller));
  REQUIRE(table.exit_code == 0);
  // The same table, then the verdicts (computed by kvctl when the controller sent none).
  CHECK(table.out.rfind("job job-1 (t): failed\n\n" + run_table, 0) == 0);
  CHECK(table.out.find("comparison c4: invalid") != std::string::npos);

  KvctlRun csv = RunKvctl({"results", "job-1", "--output", "csv"}, EnvFor(controller));
  REQUIRE(csv.exit_code == 0);
  std::vector<std::string> lines = absl::StrSplit(csv.out, '\n', absl::SkipEmpty());
  REQUIRE(lines.size() == 5);
  // Every field of each result, one row per scenario, in the job's scenario order.
  CHECK(lines[0].rfind(
            "scenario_id,tier,concurrency,repeat,agent_id,state,comparison_group,verdict,error,"
            "latency.ttft_p50_s,",
            0) == 0);
  // With its agent and its comparison's verdict, spelled as job.json spells it.
  CHECK(lines[1].rfind("00-gpu-c4,GPU,4,1,agent-a,succeeded,c4,VERDICT_INVALID,,0.01234,0.04567,",
                       0) == 0);

  KvctlRun json = RunKvctl({"results", "job-1", "-o", "json"}, EnvFor(controller));
  REQUIRE(json.exit_code == 0);
  nlohmann::json parsed = nlohmann::json::parse(json.out);
  REQUIRE(parsed.size() == 4);
  CHECK(parsed[0]["scenario_id"] == "00-gpu-c4");
  CHECK(parsed[0]["tier"] == "GPU");
  CHECK(parsed[0]["concurrency"] == 4);
  CHECK(parsed[0]["state"] == "SCENARIO_STATE_SUCCEEDED");
  CHECK(parsed[0]["agent_id"] == "agent-a");
  CHECK(parsed[0]["comparison_group"] == "c4");
  CHECK(parsed[0]["verdict"] == "VERDICT_INVALID");
  CHECK(parsed[3]["verdict"].is_null());  // c2 has one tier: no comparison
  CHECK(parsed[0]["result"]["latency"]["ttft_p50_s"] == Approx(0.01234));

  // --require-valid: printed as ever, then exit 8 naming what is not valid.
  KvctlRun gated =
      RunKvctl({"results", "job-1", "-o", "json", "--require-valid"}, EnvFor(controller));
  CHECK(gated.exit_code == 8);
  CHECK(nlohmann::json::parse(gated.out).size() == 4);
  CHECK(gated.err.find("comparison c4 is invalid") != std::string::npos);
  CHECK(parsed[2]["state"] == "SCENARIO_STATE_FAILED");
  CHECK(parsed[2]["error"] == "replica-0 never became healthy");
  CHECK_FALSE(parsed[2].contains("result"));
}

TEST_CASE("kvctl status shows each scenario's agent, attempt, phase and error") {
  FakeController controller;
  v1::Job job = JobOf(RunOutcomes());
  job.set_state(v1::JOB_STATE_RUNNING);
  job.set_submit_unix_ms(1'800'000'000'000);
  v1::ScenarioStatus* running = job.mutable_scenarios(3);
  running->set_state(v1::SCENARIO_STATE_RUNNING);
  running->set_attempt(2);
  running->mutable_progress()->set_phase(v1::SCENARIO_PHASE_REPLAY);
  running->mutable_progress()->set_sessions_done(1);
  running->mutable_progress()->set_sessions_total(2);
  running->mutable_progress()->set_requests_done(17);
  controller.SetJob(job);

  KvctlRun run = RunKvctl({"status", "job-1"}, EnvFor(controller));
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("job job-1 (t): running") == 0);
  CHECK(run.out.find("submitted 2027-01-15 08:00:00 UTC") != std::string::npos);
  CHECK(run.out.find("replay") != std::string::npos);
  CHECK(run.out.find("1/2 sessions, 17 req") != std::string::npos);
  CHECK(run.out.find("replica-0 never became healthy") != std::string::npos);

  KvctlRun json = RunKvctl({"status", "job-1", "-o", "json"}, EnvFor(controller));
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["scenarios"][3]["attempt"] == 2);
}

TEST_CASE("kvctl cancel sends the reason and prints the job's state") {
  FakeController controller;
  controller.SetJob(JobOf(RunOutcomes()));
  KvctlRun run = RunKvctl({"cancel", "job-1", "--reason", "wrong model"}, EnvFor(controller));
  REQUIRE(run.exit_code == 0);
  CHECK(run.out == "job job-1: cancelled\n");
  REQUIRE(controller.cancels().size() == 1);
  CHECK(controller.cancels()[0].reason() == "wrong model");
  CHECK(RunKvctl({"cancel", "nope"}, EnvFor(controller)).exit_code == 3);
}

TEST_CASE("kvctl agents shows what each agent has and runs") {
  FakeController controller;
  v1::ListAgentsResponse response;
  v1::AgentView* agent = response.add_agents();
  agent->set_state(v1::AGENT_STATE_CONNECTED);
  agent->set_last_heartbeat_unix_ms(1'800'000'000'000 - 3'000);
  agent->set_running_job_id("job-1");
  agent->set_running_scenario_id("00-gpu-c4");
  v1::AgentCapabilities* capabilities = agent->mutable_capabilities();
  capabilities->set_agent_id("gpu-node-1");
  capabilities->set_hostname("node1.lab");
  for (int i = 0; i < 8; ++i) capabilities->add_gpus()->set_name("NVIDIA H200");
  capabilities->set_cpu_memory_bytes(int64_t{2048} << 30);
  capabilities->set_nvme_cache_path("/nvme/kv");
  capabilities->set_nvme_free_bytes(int64_t{3500} << 30);
  capabilities->add_profiles("sim-vllm");
  capabilities->add_profiles("lmcache-cpu");
  controller.SetAgents(response);

  KvctlRun run = RunKvctl({"agents"}, EnvFor(controller));
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("gpu-node-1") != std::string::npos);
  CHECK(run.out.find("connected") != std::string::npos);
  CHECK(run.out.find("8x NVIDIA H200") != std::string::npos);
  CHECK(run.out.find("2048 GiB") != std::string::npos);
  CHECK(run.out.find("3500 GiB free") != std::string::npos);
  CHECK(run.out.find("sim-vllm,lmcache-cpu") != std::string::npos);
  CHECK(run.out.find("job-1/00-gpu-c4") != std::string::npos);
  CHECK(run.out.find("3s ago") != std::string::npos);
  // A heartbeat this second reads "<1s ago", never "0 ago".
  response.mutable_agents(0)->set_last_heartbeat_unix_ms(1'800'000'000'000 - 400);
  controller.SetAgents(response);
  CHECK(RunKvctl({"agents"}, EnvFor(controller)).out.find("<1s ago") != std::string::npos);

  KvctlRun csv = RunKvctl({"agents", "-o", "csv"}, EnvFor(controller));
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.find("AGENT,HOST,STATE,GPUS") == 0);
  KvctlRun json = RunKvctl({"agents", "-o", "json"}, EnvFor(controller));
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)[0]["capabilities"]["hostname"] == "node1.lab");
}

}  // namespace
}  // namespace kvbench::testing
