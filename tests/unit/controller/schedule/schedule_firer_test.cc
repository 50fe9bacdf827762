// The schedule runner on a fake clock, a real SQLite store and a recording job side:
// each fire time fires once, across restarts of the controller (a new runner over the same
// file), with the missed-run grace, the overlap policies, pause and run-now.

#include "controller/schedule/schedule_firer.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/schedule/schedule_spec_validator.h"
#include "controller/store/sql_store.h"
#include "tests/fakes/fake_clock.h"
#include "tests/support/sim_job_spec.h"
#include "tests/support/temp_dir.h"

namespace kvbench::controller {
namespace {

using testing::FakeClock;

// The job side: submits are idempotent by request id (as the job store is), ListJobs filters by
// labels and states like the controller's, and jobs change state when a test says so.
class RecordingJobs : public ScheduledJobs {
 public:
  absl::StatusOr<v1::SubmitJobResponse> SubmitJob(const v1::SubmitJobRequest& request) override {
    auto known = by_request_.find(request.request_id());
    v1::SubmitJobResponse response;
    if (known != by_request_.end()) {
      response.set_job_id(known->second);
      return response;
    }
    v1::Job job;
    job.set_job_id(absl::StrCat("job-", jobs_.size() + 1));
    *job.mutable_spec() = request.spec();
    job.set_state(v1::JOB_STATE_QUEUED);
    jobs_.push_back(job);
    by_request_[request.request_id()] = job.job_id();
    submits.push_back(request);
    response.set_job_id(job.job_id());
    return response;
  }
  absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& request) override {
    v1::ListJobsResponse response;
    for (auto job = jobs_.rbegin(); job != jobs_.rend(); ++job) {
      bool match = true;
      for (const auto& [key, value] : request.labels()) {
        auto label = job->spec().labels().find(key);
        match = match && label != job->spec().labels().end() && label->second == value;
      }
      if (request.states_size() > 0) {
        bool state_ok = false;
        for (int state : request.states()) state_ok = state_ok || state == job->state();
        match = match && state_ok;
      }
      if (match) *response.add_jobs() = *job;
    }
    return response;
  }
  absl::StatusOr<v1::Job> CancelJob(const v1::CancelJobRequest& request) override {
    cancels.push_back(request);
    SetState(request.job_id(), v1::JOB_STATE_CANCELLED);
    return Find(request.job_id());
  }

  void SetState(const std::string& job_id, v1::JobState state) { Find(job_id).set_state(state); }
  v1::Job& Find(const std::string& job_id) {
    for (v1::Job& job : jobs_) {
      if (job.job_id() == job_id) return job;
    }
    FAIL("no job " << job_id);
    return jobs_.front();
  }
  void FinishAll() {
    for (v1::Job& job : jobs_) job.set_state(v1::JOB_STATE_SUCCEEDED);
  }

  std::vector<v1::SubmitJobRequest> submits;
  std::vector<v1::CancelJobRequest> cancels;

 private:
  std::vector<v1::Job> jobs_;
  std::map<std::string, std::string> by_request_;
};

absl::Time At(const std::string& rfc3339) {
  absl::Time time;
  std::string error;
  REQUIRE(absl::ParseTime(absl::RFC3339_full, rfc3339, &time, &error));
  return time;
}

v1::ScheduleSpec Spec(const std::string& name, const std::string& cron) {
  v1::ScheduleSpec spec;
  spec.set_name(name);
  spec.set_cron(cron);
  *spec.mutable_job() = testing::SimJobSpec("nightly", {v1::GPU, v1::CPU_RAM}, {2});
  return spec;
}

// A controller: a runner over the store file, loaded as at start.
struct Controller {
  Controller(const std::string& path, RecordingJobs* jobs, FakeClock* clock) {
    absl::StatusOr<std::unique_ptr<SqlStore>> opened = SqlStore::OpenSqlite(path);
    REQUIRE(opened.ok());
    store = *std::move(opened);
    runner = std::make_unique<ScheduleFirer>(&store->Schedules(), jobs, clock);
    REQUIRE(runner->Load().ok());
  }
  std::unique_ptr<SqlStore> store;
  std::unique_ptr<ScheduleFirer> runner;
};

std::vector<std::string> FireTimes(const std::vector<v1::SubmitJobRequest>& submits) {
  std::vector<std::string> times;
  for (const v1::SubmitJobRequest& submit : submits) {
    times.push_back(submit.spec().labels().at(kFireTimeLabel));
  }
  return times;
}

TEST_CASE("an every-minute schedule fires once per minute and labels its jobs",
          "[schedule][runner]") {
  testing::TempDir dir;
  FakeClock clock;
  clock.SetNow(At("2026-12-02T12:00:30Z"));
  RecordingJobs jobs;
  Controller controller(dir.File("controller.db"), &jobs, &clock);
  absl::StatusOr<v1::Schedule> created =
      controller.runner->Create(Spec("every-minute", "* * * * *"));
  REQUIRE(created.ok());
  CHECK(created->next_fire_unix_ms() == absl::ToUnixMillis(At("2026-12-02T12:01:00Z")));
  CHECK(created->spec().time_zone() == "UTC");

  clock.SetNow(At("2026-12-02T12:00:59Z"));
  controller.runner->Tick();
  CHECK(jobs.submits.empty());
  for (int i = 0; i < 3; ++i) {
    clock.AdvanceTime(absl::Seconds(1));  // 12:01:00, :01, :02
    controller.runner->Tick();
    jobs.FinishAll();
  }
  REQUIRE(jobs.submits.size() == 1);
  const v1::SubmitJobRequest& submit = jobs.submits[0];
  CHECK(submit.spec().labels().at(kScheduleLabel) == "every-minute");
  CHECK(submit.spec().labels().at(kFireTimeLabel) == "2026-12-02T12:01:00Z");
  CHECK(submit.request_id() ==
        absl::StrCat("schedule/every-minute/", absl::ToUnixMillis(At("2026-12-02T12:01:00Z"))));
  CHECK(submit.spec().name() == "nightly");
  clock.SetNow(At("2026-12-02T12:02:00Z"));
  controller.runner->Tick();
  CHECK(FireTimes(jobs.submits) ==
        std::vector<std::string>{"2026-12-02T12:01:00Z", "2026-12-02T12:02:00Z"});

  absl::StatusOr<v1::Schedule> shown = controller.runner->Get("every-minute");
  REQUIRE(shown.ok());
  REQUIRE(shown->recent_fires_size() == 2);
  CHECK(shown->recent_fires(0).fire_unix_ms() == absl::ToUnixMillis(At("2026-12-02T12:02:00Z")));
  CHECK(shown->recent_fires(0).outcome() == v1::FIRE_SUBMITTED);
  CHECK(shown->recent_fires(0).job_id() == "job-2");
  CHECK(shown->next_fire_unix_ms() == absl::ToUnixMillis(At("2026-12-02T12:03:00Z")));
}

TEST_CASE("a controller down across fire times fires the latest once or records them missed",
          "[schedule][runner]") {
  testing::TempDir dir;
  FakeClock clock;
  clock.SetNow(At("2026-12-02T12:00:30Z"));
  RecordingJobs jobs;
  {
    Controller before(dir.File("controller.db"), &jobs, &clock);
    v1::ScheduleSpec spec = Spec("every-minute", "* * * * *");
    spec.set_missed_run_grace_s(300);
    REQUIRE(before.runner->Create(spec).ok());
    clock.SetNow(At("2026-12-02T12:01:00Z"));
    before.runner->Tick();
    REQUIRE(jobs.submits.size() == 1);
    jobs.FinishAll();
  }  // the controller stops

  SECTION("back within the grace: the latest fire time runs, once") {
    clock.SetNow(At("2026-12-02T12:04:10Z"));  // 12:02, 12:03, 12:04 passed
    Controller after(dir.File("controller.db"), &jobs, &clock);
    after.runner->Tick();
    after.runner->Tick();
    CHECK(FireTimes(jobs.submits) ==
          std::vector<std::string>{"2026-12-02T12:01:00Z", "2026-12-02T12:04:00Z"});
    absl::StatusOr<v1::Schedule> shown = after.runner->Get("every-minute");
    REQUIRE(shown.ok());
    CHECK_THAT(shown->recent_fires(0).detail(),
               Catch::Contains("stands for 2 earlier fire time(s) within the grace"));
  }
  SECTION("back after the grace: the old fire times are recorded as missed") {
    clock.SetNow(At("2026-12-02T13:00:30Z"));  // grace window from 12:55:30
    Controller after(dir.File("controller.db"), &jobs, &clock);
    after.runner->Tick();
    CHECK(FireTimes(jobs.submits) ==
          std::vector<std::string>{"2026-12-02T12:01:00Z", "2026-12-02T13:00:00Z"});
    absl::StatusOr<v1::Schedule> shown = after.runner->Get("every-minute");
    REQUIRE(shown.ok());
    REQUIRE(shown->recent_fires_size() == 3);
    const v1::ScheduleFire& missed = shown->recent_fires(1);
    CHECK(missed.outcome() == v1::FIRE_MISSED);
    CHECK(missed.detail() ==
          "54 fire time(s) from 2026-12-02T12:02:00Z to 2026-12-02T12:55:00Z passed while the "
          "controller was down, beyond the grace of 300 s");
    CHECK_THAT(shown->recent_fires(0).detail(), Catch::Contains("stands for 4 earlier"));
  }
  SECTION("back after more than 10,000 fire times: the record ends at a fire time") {
    clock.SetNow(At("2026-12-10T12:00:30Z"));  // 8 days: 11,518 fire times before the grace
    Controller after(dir.File("controller.db"), &jobs, &clock);
    after.runner->Tick();
    absl::StatusOr<v1::Schedule> shown = after.runner->Get("every-minute");
    REQUIRE(shown.ok());
    REQUIRE(shown->recent_fires_size() == 3);
    const v1::ScheduleFire& missed = shown->recent_fires(1);
    CHECK(missed.outcome() == v1::FIRE_MISSED);
    // The last fire time before the grace window (from 11:55:30), not the window's edge.
    CHECK(missed.fire_unix_ms() == absl::ToUnixMillis(At("2026-12-10T11:55:00Z")));
    CHECK(missed.detail() ==
          "more than 10000 fire time(s) from 2026-12-02T12:02:00Z to 2026-12-10T11:55:00Z passed "
          "while the controller was down, beyond the grace of 300 s");
    CHECK(FireTimes(jobs.submits) ==
          std::vector<std::string>{"2026-12-02T12:01:00Z", "2026-12-10T12:00:00Z"});
    CHECK_THAT(shown->recent_fires(0).detail(), Catch::Contains("stands for 4 earlier"));
  }
  SECTION("a job submitted just before a crash is found, never submitted again") {
    // The previous controller submitted 12:02's job and died before recording the fire.
    v1::SubmitJobRequest orphan = jobs.submits[0];
    (*orphan.mutable_spec()->mutable_labels())[kFireTimeLabel] = "2026-12-02T12:02:00Z";
    orphan.set_request_id(
        absl::StrCat("schedule/every-minute/", absl::ToUnixMillis(At("2026-12-02T12:02:00Z"))));
    REQUIRE(jobs.SubmitJob(orphan).ok());
    clock.SetNow(At("2026-12-02T12:02:05Z"));
    Controller after(dir.File("controller.db"), &jobs, &clock);
    after.runner->Tick();
    after.runner->Tick();
    CHECK(jobs.submits.size() == 2);  // the first fire's and the orphan: nothing new
    absl::StatusOr<v1::Schedule> shown = after.runner->Get("every-minute");
    REQUIRE(shown.ok());
    CHECK(shown->recent_fires(0).outcome() == v1::FIRE_SUBMITTED);
    CHECK(shown->recent_fires(0).job_id() == "job-2");
  }
}

TEST_CASE("the overlap policy decides what a fire does while the last job runs",
          "[schedule][runner]") {
  testing::TempDir dir;
  FakeClock clock;
  clock.SetNow(At("2026-12-02T12:00:30Z"));
  RecordingJobs jobs;
  Controller controller(dir.File("controller.db"), &jobs, &clock);
  v1::ScheduleSpec spec = Spec("hourly", "0 * * * *");
  v1::FireOutcome expected_outcome = v1::FIRE_SUBMITTED;
  size_t expected_submits = 2;
  std::string expected_detail;
  SECTION("skip") {
    spec.set_overlap(v1::OVERLAP_SKIP);
    expected_outcome = v1::FIRE_SKIPPED_OVERLAP;
    expected_submits = 1;
    expected_detail = "job job-1 (fired for 2026-12-02T13:00:00Z) is still running";
  }
  SECTION("queue") {
    spec.set_overlap(v1::OVERLAP_QUEUE);
    expected_detail = "queued behind job job-1 (fired for 2026-12-02T13:00:00Z)";
  }
  SECTION("replace") {
    spec.set_overlap(v1::OVERLAP_REPLACE);
    expected_detail = "replaced job job-1 (fired for 2026-12-02T13:00:00Z)";
  }
  REQUIRE(controller.runner->Create(spec).ok());
  clock.SetNow(At("2026-12-02T13:00:00Z"));
  controller.runner->Tick();
  REQUIRE(jobs.submits.size() == 1);
  jobs.SetState("job-1", v1::JOB_STATE_RUNNING);
  clock.SetNow(At("2026-12-02T14:00:00Z"));
  controller.runner->Tick();
  CHECK(jobs.submits.size() == expected_submits);
  absl::StatusOr<v1::Schedule> shown = controller.runner->Get("hourly");
  REQUIRE(shown.ok());
  CHECK(shown->recent_fires(0).outcome() == expected_outcome);
  CHECK(shown->recent_fires(0).detail() == expected_detail);
  if (spec.overlap() == v1::OVERLAP_REPLACE) {
    REQUIRE(jobs.cancels.size() == 1);
    CHECK(jobs.cancels[0].job_id() == "job-1");
    CHECK(jobs.cancels[0].reason() == "replaced by schedule hourly's fire of 2026-12-02T14:00:00Z");
  } else {
    CHECK(jobs.cancels.empty());
  }
}

TEST_CASE("paused schedules do not fire or catch up and run-now fires at once",
          "[schedule][runner]") {
  testing::TempDir dir;
  FakeClock clock;
  clock.SetNow(At("2026-12-02T12:00:30Z"));
  RecordingJobs jobs;
  Controller controller(dir.File("controller.db"), &jobs, &clock);
  REQUIRE(controller.runner->Create(Spec("every-minute", "* * * * *")).ok());
  absl::StatusOr<v1::Schedule> paused = controller.runner->SetPaused("every-minute", true);
  REQUIRE(paused.ok());
  CHECK(paused->paused());
  CHECK(paused->next_fire_unix_ms() == 0);
  clock.SetNow(At("2026-12-02T12:03:00Z"));
  controller.runner->Tick();
  CHECK(jobs.submits.empty());

  absl::StatusOr<v1::ScheduleFire> now = controller.runner->RunNow("every-minute");
  REQUIRE(now.ok());
  CHECK(now->run_now());
  CHECK(now->outcome() == v1::FIRE_SUBMITTED);
  REQUIRE(jobs.submits.size() == 1);
  CHECK(jobs.submits[0].spec().labels().at(kFireTimeLabel) == "2026-12-02T12:03:00Z");
  jobs.FinishAll();

  clock.SetNow(At("2026-12-02T12:03:30Z"));
  absl::StatusOr<v1::Schedule> resumed = controller.runner->SetPaused("every-minute", false);
  REQUIRE(resumed.ok());
  CHECK(resumed->next_fire_unix_ms() == absl::ToUnixMillis(At("2026-12-02T12:04:00Z")));
  controller.runner->Tick();
  CHECK(jobs.submits.size() == 1);  // nothing of the pause caught up

  // Paused state survives a restart.
  REQUIRE(controller.runner->SetPaused("every-minute", true).ok());
  Controller restarted(dir.File("controller.db"), &jobs, &clock);
  CHECK(restarted.runner->Get("every-minute")->paused());
  REQUIRE(restarted.runner->Delete("every-minute").ok());
  CHECK(restarted.runner->Get("every-minute").status().code() == absl::StatusCode::kNotFound);
  CHECK(restarted.runner->List().empty());
}

TEST_CASE("bad schedules are refused naming every field", "[schedule][runner]") {
  testing::TempDir dir;
  FakeClock clock;
  RecordingJobs jobs;
  Controller controller(dir.File("controller.db"), &jobs, &clock);
  v1::ScheduleSpec spec = Spec("Nightly Run", "0 25 * * *");
  spec.set_time_zone("Europe/Atlantis");
  spec.set_missed_run_grace_s(-1);
  spec.mutable_job()->clear_concurrency();
  (*spec.mutable_job()->mutable_labels())[kScheduleLabel] = "other";
  absl::StatusOr<v1::Schedule> created = controller.runner->Create(spec);
  REQUIRE_FALSE(created.ok());
  const std::string message(created.status().message());
  CHECK_THAT(message, Catch::Contains("name: \"Nightly Run\" is not 1-63 lowercase letters"));
  CHECK_THAT(message, Catch::Contains("cron: hour: 25 is outside 0-23"));
  CHECK_THAT(message, Catch::Contains("missed_run_grace_s: -1 is outside"));
  CHECK_THAT(message, Catch::Contains("job.labels.kvbench.schedule: is set by the controller"));
  CHECK_THAT(message, Catch::Contains("job.concurrency"));

  v1::ScheduleSpec zone = Spec("nightly", "0 2 * * *");
  zone.set_time_zone("Europe/Atlantis");
  absl::StatusOr<v1::Schedule> bad_zone = controller.runner->Create(zone);
  REQUIRE_FALSE(bad_zone.ok());
  CHECK_THAT(std::string(bad_zone.status().message()),
             Catch::Contains("time_zone: \"Europe/Atlantis\" is not an IANA time zone"));

  REQUIRE(controller.runner->Create(Spec("nightly", "0 2 * * *")).ok());
  CHECK(controller.runner->Create(Spec("nightly", "0 3 * * *")).status().code() ==
        absl::StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace kvbench::controller
