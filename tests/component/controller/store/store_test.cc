// SqlStore on both engines: a real SQLite file in a temp dir and a real PostgreSQL server.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "controller/store/sql_store.h"
#include "google/protobuf/util/message_differencer.h"
#include "tests/component/controller/store/open_store.h"
#include "tests/support/temp_dir.h"

namespace kvbench::controller {
namespace {

using google::protobuf::util::MessageDifferencer;

const absl::Time kSubmitTime = absl::FromUnixMillis(1700000000123);

using testing::OpenStore;

v1::JobSpec Spec(const std::string& name) {
  v1::JobSpec spec;
  spec.set_name(name);
  spec.set_model("Qwen/Qwen3-8B");
  spec.add_tiers(v1::CPU_RAM);
  spec.add_concurrency(8);
  (*spec.mutable_labels())["team"] = "kv";
  return spec;
}

std::vector<v1::Scenario> Scenarios(const std::string& job_id, int count) {
  std::vector<v1::Scenario> scenarios;
  for (int i = 0; i < count; ++i) {
    v1::Scenario scenario;
    scenario.set_scenario_id(job_id + "-s" + std::to_string(i));
    scenario.set_job_id(job_id);
    scenario.set_index(i);
    scenario.set_tier(v1::CPU_RAM);
    scenario.set_concurrency(8 * (i + 1));
    scenarios.push_back(scenario);
  }
  return scenarios;
}

v1::Event MakeEvent(const std::string& agent, const std::string& job, const std::string& scenario,
                    int64_t seq) {
  v1::Event event;
  event.set_seq(seq);
  event.set_agent_id(agent);
  event.set_job_id(job);
  event.set_scenario_id(scenario);
  event.set_unix_ms(1700000000000 + seq);
  event.mutable_progress()->set_requests_done(seq * 10);
  return event;
}

v1::ScenarioResult Result(const std::string& scenario_id, double ttft) {
  v1::ScenarioResult result;
  result.set_scenario_id(scenario_id);
  result.set_tier(v1::CPU_RAM);
  result.mutable_latency()->set_ttft_p50_s(ttft);
  return result;
}

v1::AgentCapabilities Capabilities(const std::string& agent_id, int cores) {
  v1::AgentCapabilities capabilities;
  capabilities.set_agent_id(agent_id);
  capabilities.set_hostname(agent_id + ".lab");
  capabilities.set_cpu_cores(cores);
  capabilities.add_profiles("sim");
  return capabilities;
}

// The writes the durability tests make, then check after a reopen.
void WriteEverything(Store& store) {
  REQUIRE(store.Jobs()
              .PutJob("job-1", Spec("nightly"), Scenarios("job-1", 2), 5, kSubmitTime, "")
              .ok());
  for (int64_t seq = 1; seq <= 3; ++seq) {
    REQUIRE(*store.Events().AppendEvent(MakeEvent("agent-a", "job-1", "job-1-s0", seq)));
  }
  REQUIRE(
      store.Jobs()
          .SetScenarioState("job-1", "job-1-s0", v1::SCENARIO_STATE_SUCCEEDED, "done", 1, "agent-a")
          .ok());
  REQUIRE(store.Jobs().PutResult("job-1", "job-1-s0", Result("job-1-s0", 0.25)).ok());
  REQUIRE(store.Agents().UpsertAgent(Capabilities("agent-a", 16), kSubmitTime).ok());
}

void CheckEverything(Store& store) {
  absl::StatusOr<JobRecord> job = store.Jobs().GetJob("job-1");
  INFO(job.status().ToString());
  REQUIRE(job.ok());
  CHECK(MessageDifferencer::Equals(job->spec, Spec("nightly")));
  CHECK(job->priority == 5);
  CHECK(job->submit_time == kSubmitTime);
  REQUIRE(job->scenarios.size() == 2);
  CHECK(job->scenarios[0].state == v1::SCENARIO_STATE_SUCCEEDED);
  CHECK(job->scenarios[0].agent_id == "agent-a");
  absl::StatusOr<std::vector<StoredEvent>> events = store.Events().EventsForJob("job-1", 0, 100);
  REQUIRE(events.ok());
  REQUIRE(events->size() == 3);
  CHECK(
      MessageDifferencer::Equals((*events)[2].event, MakeEvent("agent-a", "job-1", "job-1-s0", 3)));
  absl::StatusOr<std::vector<StoredResult>> results = store.Jobs().GetResults("job-1");
  REQUIRE(results.ok());
  REQUIRE(results->size() == 1);
  CHECK(MessageDifferencer::Equals((*results)[0].result, Result("job-1-s0", 0.25)));
  absl::StatusOr<std::vector<AgentRecord>> agents = store.Agents().ListAgents();
  REQUIRE(agents.ok());
  REQUIRE(agents->size() == 1);
  CHECK((*agents)[0].capabilities.cpu_cores() == 16);
}

TEST_CASE("SqlStore round-trips a job with its scenarios", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto store = at.Open();
  std::vector<v1::Scenario> scenarios = Scenarios("job-1", 3);
  REQUIRE(store->Jobs().PutJob("job-1", Spec("nightly"), scenarios, 7, kSubmitTime, "").ok());

  absl::StatusOr<JobRecord> job = store->Jobs().GetJob("job-1");
  REQUIRE(job.ok());
  CHECK(job->job_id == "job-1");
  CHECK(MessageDifferencer::Equals(job->spec, Spec("nightly")));
  CHECK(job->state == v1::JOB_STATE_QUEUED);
  CHECK(job->priority == 7);
  CHECK(job->submit_time == kSubmitTime);
  REQUIRE(job->scenarios.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(MessageDifferencer::Equals(job->scenarios[i].scenario, scenarios[i]));
    CHECK(job->scenarios[i].state == v1::SCENARIO_STATE_PENDING);
    CHECK(job->scenarios[i].attempt == 0);
    CHECK(job->scenarios[i].agent_id.empty());
  }

  REQUIRE(store->Jobs().SetJobState("job-1", v1::JOB_STATE_RUNNING).ok());
  REQUIRE(store->Jobs()
              .SetScenarioState("job-1", "job-1-s1", v1::SCENARIO_STATE_LOST, "agent gone", 2,
                                "agent-b")
              .ok());
  job = store->Jobs().GetJob("job-1");
  REQUIRE(job.ok());
  CHECK(job->state == v1::JOB_STATE_RUNNING);
  CHECK(job->scenarios[1].state == v1::SCENARIO_STATE_LOST);
  CHECK(job->scenarios[1].reason == "agent gone");
  CHECK(job->scenarios[1].attempt == 2);
  CHECK(job->scenarios[1].agent_id == "agent-b");
  CHECK(job->scenarios[0].state == v1::SCENARIO_STATE_PENDING);
}

TEST_CASE("SqlStore reports missing and duplicate jobs with canonical codes", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto store = at.Open();
  REQUIRE(store->Jobs().PutJob("job-1", Spec("a"), Scenarios("job-1", 1), 0, kSubmitTime, "").ok());

  absl::Status again =
      store->Jobs().PutJob("job-1", Spec("b"), Scenarios("job-1", 2), 0, kSubmitTime, "");
  CHECK(absl::IsAlreadyExists(again));
  CHECK_THAT(std::string(again.message()), Catch::Contains("job-1"));
  // The failed PutJob left nothing behind: still the first spec with one scenario.
  absl::StatusOr<JobRecord> job = store->Jobs().GetJob("job-1");
  REQUIRE(job.ok());
  CHECK(job->spec.name() == "a");
  CHECK(job->scenarios.size() == 1);

  std::vector<v1::Scenario> twice = Scenarios("job-2", 1);
  twice.push_back(twice[0]);
  CHECK(
      absl::IsInvalidArgument(store->Jobs().PutJob("job-2", Spec("c"), twice, 0, kSubmitTime, "")));
  CHECK(
      absl::IsNotFound(store->Jobs().GetJob("job-2").status()));  // rolled back with its scenarios
  CHECK(absl::IsInvalidArgument(store->Jobs().PutJob("", Spec("c"), {}, 0, kSubmitTime, "")));

  CHECK(absl::IsNotFound(store->Jobs().GetJob("nope").status()));
  CHECK(absl::IsNotFound(store->Jobs().SetJobState("nope", v1::JOB_STATE_FAILED)));
  CHECK(absl::IsNotFound(
      store->Jobs().SetScenarioState("job-1", "nope", v1::SCENARIO_STATE_RUNNING, "", 1, "a")));
}

TEST_CASE("SqlStore stores each (agent, scenario, seq) event once", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto store = at.Open();
  v1::Event event = MakeEvent("agent-a", "job-1", "job-1-s0", 1);
  absl::StatusOr<bool> first = store->Events().AppendEvent(event);
  REQUIRE(first.ok());
  CHECK(*first);
  absl::StatusOr<bool> resent = store->Events().AppendEvent(event);
  REQUIRE(resent.ok());
  CHECK_FALSE(*resent);
  // The same seq from another agent or for another scenario is a different event.
  CHECK(*store->Events().AppendEvent(MakeEvent("agent-b", "job-1", "job-1-s0", 1)));
  CHECK(*store->Events().AppendEvent(MakeEvent("agent-a", "job-1", "job-1-s1", 1)));

  absl::StatusOr<std::vector<StoredEvent>> events = store->Events().EventsForJob("job-1", 0, 100);
  REQUIRE(events.ok());
  CHECK(events->size() == 3);
  CHECK(absl::IsInvalidArgument(
      store->Events().AppendEvent(MakeEvent("", "job-1", "s", 1)).status()));
  CHECK(absl::IsInvalidArgument(store->Events().AppendEvent(MakeEvent("a", "", "s", 1)).status()));
}

TEST_CASE("SqlStore lets a watcher resume events by position", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto store = at.Open();
  for (int64_t seq = 1; seq <= 5; ++seq) {
    REQUIRE(*store->Events().AppendEvent(MakeEvent("agent-a", "job-1", "s0", seq)));
    REQUIRE(*store->Events().AppendEvent(MakeEvent("agent-a", "job-2", "t0", seq)));  // interleaved
  }
  std::vector<int64_t> seqs;
  int64_t position = 0;
  while (true) {
    absl::StatusOr<std::vector<StoredEvent>> batch =
        store->Events().EventsForJob("job-1", position, 2);
    REQUIRE(batch.ok());
    if (batch->empty()) break;
    CHECK(batch->size() <= 2);
    for (const StoredEvent& stored : *batch) {
      CHECK(stored.position > position);
      CHECK(stored.event.job_id() == "job-1");
      position = stored.position;
      seqs.push_back(stored.event.seq());
    }
  }
  CHECK(seqs == std::vector<int64_t>{1, 2, 3, 4, 5});
  // New events land after the last position seen.
  REQUIRE(*store->Events().AppendEvent(MakeEvent("agent-a", "job-1", "s0", 6)));
  absl::StatusOr<std::vector<StoredEvent>> tail =
      store->Events().EventsForJob("job-1", position, 10);
  REQUIRE(tail.ok());
  REQUIRE(tail->size() == 1);
  CHECK((*tail)[0].event.seq() == 6);
  CHECK(absl::IsInvalidArgument(store->Events().EventsForJob("job-1", 0, 0).status()));
}

TEST_CASE("SqlStore pages and filters jobs", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto store = at.Open();
  for (int i = 0; i < 7; ++i) {
    std::string id = "job-" + std::to_string(i);
    REQUIRE(store->Jobs()
                .PutJob(id, Spec(i % 2 == 0 ? "even" : "odd"), Scenarios(id, 1), 0,
                        kSubmitTime + absl::Seconds(i), "")
                .ok());
  }
  REQUIRE(store->Jobs().SetJobState("job-3", v1::JOB_STATE_RUNNING).ok());

  std::vector<std::string> ids;
  std::string token;
  int pages = 0;
  do {
    absl::StatusOr<JobPage> page = store->Jobs().ListJobs({}, 3, token);
    REQUIRE(page.ok());
    CHECK(page->jobs.size() <= 3);
    for (const JobRecord& job : page->jobs) {
      ids.push_back(job.job_id);
      CHECK(job.scenarios.size() == 1);
    }
    token = page->next_page_token;
    ++pages;
  } while (!token.empty());
  CHECK(pages == 3);
  CHECK(ids ==
        std::vector<std::string>{"job-0", "job-1", "job-2", "job-3", "job-4", "job-5", "job-6"});

  JobFilter even;
  even.name = "even";
  absl::StatusOr<JobPage> evens = store->Jobs().ListJobs(even, 0, "");
  REQUIRE(evens.ok());
  CHECK(evens->jobs.size() == 4);
  CHECK(evens->next_page_token.empty());

  JobFilter running;
  running.state = v1::JOB_STATE_RUNNING;
  absl::StatusOr<JobPage> runs = store->Jobs().ListJobs(running, 0, "");
  REQUIRE(runs.ok());
  REQUIRE(runs->jobs.size() == 1);
  CHECK(runs->jobs[0].job_id == "job-3");

  CHECK(absl::IsInvalidArgument(store->Jobs().ListJobs({}, 3, "garbage").status()));
  CHECK(absl::IsInvalidArgument(store->Jobs().ListJobs({}, -1, "").status()));
}

TEST_CASE("SqlStore keeps the latest result and lists agents", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto store = at.Open();
  REQUIRE(store->Jobs().PutResult("job-1", "s1", Result("s1", 0.5)).ok());
  REQUIRE(store->Jobs().PutResult("job-1", "s0", Result("s0", 0.1)).ok());
  REQUIRE(store->Jobs().PutResult("job-1", "s1", Result("s1", 0.3)).ok());
  REQUIRE(store->Jobs().PutResult("job-2", "t0", Result("t0", 9.0)).ok());
  absl::StatusOr<std::vector<StoredResult>> results = store->Jobs().GetResults("job-1");
  REQUIRE(results.ok());
  REQUIRE(results->size() == 2);
  CHECK((*results)[0].scenario_id == "s0");
  CHECK((*results)[1].scenario_id == "s1");
  CHECK((*results)[1].result.latency().ttft_p50_s() == 0.3);
  CHECK(store->Jobs().GetResults("nope")->empty());

  REQUIRE(store->Agents().UpsertAgent(Capabilities("agent-b", 8), kSubmitTime).ok());
  REQUIRE(store->Agents().UpsertAgent(Capabilities("agent-a", 4), kSubmitTime).ok());
  REQUIRE(store->Agents()
              .UpsertAgent(Capabilities("agent-b", 32), kSubmitTime + absl::Minutes(1))
              .ok());
  absl::StatusOr<std::vector<AgentRecord>> agents = store->Agents().ListAgents();
  REQUIRE(agents.ok());
  REQUIRE(agents->size() == 2);
  CHECK(MessageDifferencer::Equals((*agents)[0].capabilities, Capabilities("agent-a", 4)));
  CHECK((*agents)[1].capabilities.cpu_cores() == 32);
  CHECK((*agents)[1].last_seen == kSubmitTime + absl::Minutes(1));
  CHECK(absl::IsInvalidArgument(store->Agents().UpsertAgent(v1::AgentCapabilities(), kSubmitTime)));
}

TEST_CASE("SqlStore finds everything again after a reopen", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  {
    auto store = at.Open();
    WriteEverything(*store);
  }
  auto reopened = at.Open();
  CheckEverything(*reopened);
  // Stored-once holds across the reopen too.
  CHECK_FALSE(*reopened->Events().AppendEvent(MakeEvent("agent-a", "job-1", "job-1-s0", 2)));
}

// A child writes and then dies without closing the store; the parent must find every write that
// returned OK. SIGKILL is the "kill -9" of the controller; _exit skips every destructor.
TEST_CASE("SqlStore keeps acknowledged writes when the process dies", "[store]") {
  const bool use_sigkill = GENERATE(true, false);
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    absl::StatusOr<std::unique_ptr<SqlStore>> store = at.TryOpen();
    if (!store.ok()) _exit(2);
    Store& s = **store;
    bool ok =
        s.Jobs().PutJob("job-1", Spec("nightly"), Scenarios("job-1", 2), 5, kSubmitTime, "").ok();
    for (int64_t seq = 1; seq <= 3; ++seq) {
      ok = ok &&
           s.Events().AppendEvent(MakeEvent("agent-a", "job-1", "job-1-s0", seq)).value_or(false);
    }
    ok = ok && s.Jobs()
                   .SetScenarioState("job-1", "job-1-s0", v1::SCENARIO_STATE_SUCCEEDED, "done", 1,
                                     "agent-a")
                   .ok();
    ok = ok && s.Jobs().PutResult("job-1", "job-1-s0", Result("job-1-s0", 0.25)).ok();
    ok = ok && s.Agents().UpsertAgent(Capabilities("agent-a", 16), kSubmitTime).ok();
    if (!ok) _exit(3);
    if (use_sigkill) raise(SIGKILL);
    _exit(0);
  }
  int wstatus = 0;
  REQUIRE(waitpid(child, &wstatus, 0) == child);
  if (use_sigkill) {
    REQUIRE(WIFSIGNALED(wstatus));
    CHECK(WTERMSIG(wstatus) == SIGKILL);
  } else {
    REQUIRE(WIFEXITED(wstatus));
    REQUIRE(WEXITSTATUS(wstatus) == 0);
  }
  auto reopened = at.Open();
  CheckEverything(*reopened);
}

TEST_CASE("SqlStore refuses a file that is not an SQLite database", "[store]") {
  testing::TempDir dir;
  std::string garbage(4096, 'x');
  const std::string path = dir.WriteFile("not-a-db", "this is not a database\n" + garbage);
  absl::StatusOr<std::unique_ptr<SqlStore>> store = SqlStore::OpenSqlite(path);
  REQUIRE_FALSE(store.ok());
  CHECK(absl::IsDataLoss(store.status()));
  CHECK_THAT(std::string(store.status().message()), Catch::Contains(path));
  CHECK_THAT(std::string(store.status().message()), Catch::Contains("not a database"));
}

TEST_CASE("SqlStore names the path it cannot open", "[store]") {
  testing::TempDir dir;
  const std::string path = dir.File("missing-dir/kv.db");
  absl::StatusOr<std::unique_ptr<SqlStore>> store = SqlStore::OpenSqlite(path);
  REQUIRE_FALSE(store.ok());
  CHECK(absl::IsFailedPrecondition(store.status()));
  CHECK_THAT(std::string(store.status().message()), Catch::Contains(path));
}

}  // namespace
}  // namespace kvbench::controller
