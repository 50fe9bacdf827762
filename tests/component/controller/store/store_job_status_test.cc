// SqlStore: what the controller adds on top of the job rows (idempotent submits, job times and
// errors, where a reconnecting agent resumes), on a real file, across a reopen.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "controller/store/sql_store.h"
#include "tests/component/controller/store/open_store.h"
#include "tests/support/temp_dir.h"

namespace kvbench::controller {
namespace {

using testing::OpenStore;

std::vector<v1::Scenario> OneScenario(const std::string& job_id) {
  v1::Scenario scenario;
  scenario.set_scenario_id(job_id + "-s0");
  scenario.set_job_id(job_id);
  return {scenario};
}

v1::JobSpec Named(const std::string& name) {
  v1::JobSpec spec;
  spec.set_name(name);
  return spec;
}

TEST_CASE("a request id names one job, and a second job with it is refused", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  {
    auto store = at.Open();
    REQUIRE(store->Jobs()
                .PutJob("job-1", Named("a"), OneScenario("job-1"), 0, absl::Now(), "req-7")
                .ok());
    REQUIRE(
        store->Jobs().PutJob("job-2", Named("b"), OneScenario("job-2"), 0, absl::Now(), "").ok());
    REQUIRE(
        store->Jobs().PutJob("job-3", Named("c"), OneScenario("job-3"), 0, absl::Now(), "").ok());
    absl::Status again =
        store->Jobs().PutJob("job-4", Named("a"), OneScenario("job-4"), 0, absl::Now(), "req-7");
    CHECK(absl::IsAlreadyExists(again));
    CHECK(absl::IsNotFound(store->Jobs().GetJob("job-4").status()));
  }
  auto reopened = at.Open();
  CHECK(*reopened->Jobs().JobIdForRequest("req-7") == "job-1");
  CHECK(reopened->Jobs().JobIdForRequest("req-8")->empty());
  CHECK(reopened->Jobs().JobIdForRequest("")->empty());
  CHECK(reopened->Jobs().GetJob("job-1")->request_id == "req-7");
}

TEST_CASE("a job's state, times and error survive a reopen", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  const absl::Time start = absl::FromUnixMillis(1700000001000);
  const absl::Time end = absl::FromUnixMillis(1700000009500);
  {
    auto store = at.Open();
    REQUIRE(
        store->Jobs().PutJob("job-1", Named("a"), OneScenario("job-1"), 0, absl::Now(), "").ok());
    JobRecord fresh = *store->Jobs().GetJob("job-1");
    CHECK(fresh.start_time == absl::InfinitePast());
    CHECK(fresh.end_time == absl::InfinitePast());
    JobStatusUpdate update;
    update.state = v1::JOB_STATE_FAILED;
    update.start_time = start;
    update.end_time = end;
    update.error = "scenario job-1-s0 failed: replica-0 exited with status 1";
    REQUIRE(store->Jobs().UpdateJob("job-1", update).ok());
    CHECK(absl::IsNotFound(store->Jobs().UpdateJob("nope", update)));
  }
  JobRecord job = *at.Open()->Jobs().GetJob("job-1");
  CHECK(job.state == v1::JOB_STATE_FAILED);
  CHECK(job.start_time == start);
  CHECK(job.end_time == end);
  CHECK(job.error == "scenario job-1-s0 failed: replica-0 exited with status 1");
}

TEST_CASE("MaxEventSeq is the highest seq stored per agent", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto store = at.Open();
  CHECK(*store->Events().MaxEventSeq("agent-a") == 0);
  for (int64_t seq : {1, 2, 5, 3}) {
    v1::Event event;
    event.set_seq(seq);
    event.set_agent_id("agent-a");
    event.set_job_id("job-1");
    event.set_scenario_id("job-1-s0");
    REQUIRE(store->Events().AppendEvent(event).ok());
  }
  v1::Event other;
  other.set_seq(40);
  other.set_agent_id("agent-b");
  other.set_job_id("job-1");
  REQUIRE(store->Events().AppendEvent(other).ok());
  CHECK(*store->Events().MaxEventSeq("agent-a") == 5);
  CHECK(*store->Events().MaxEventSeq("agent-b") == 40);
}

TEST_CASE("AppendEvents commits a batch at once, flags repeats, and is all or nothing", "[store]") {
  testing::TestStoreLocation at(GENERATE(kStoreEngines));
  auto event = [](int64_t seq, const std::string& job) {
    v1::Event e;
    e.set_seq(seq);
    e.set_agent_id("agent-a");
    e.set_job_id(job);
    e.set_scenario_id("s0");
    return e;
  };
  {
    auto store = at.Open();
    REQUIRE(*store->Events().AppendEvent(event(1, "job-1")));
    absl::StatusOr<std::vector<bool>> stored =
        store->Events().AppendEvents({event(1, "job-1"), event(2, "job-1"), event(3, "job-1")});
    REQUIRE(stored.ok());
    CHECK(*stored == std::vector<bool>{false, true, true});
    // A bad event anywhere in the batch stores none of it.
    absl::StatusOr<std::vector<bool>> refused =
        store->Events().AppendEvents({event(4, "job-1"), event(5, "")});
    CHECK(absl::IsInvalidArgument(refused.status()));
  }
  auto reopened = at.Open();
  CHECK(*reopened->Events().MaxEventSeq("agent-a") == 3);
  CHECK(reopened->Events().EventsForJob("job-1", 0, 100)->size() == 3);
}

}  // namespace
}  // namespace kvbench::controller
