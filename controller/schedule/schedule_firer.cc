#include "controller/schedule/schedule_firer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"
#include "controller/schedule/schedule_spec_validator.h"

namespace kvbench::controller {
namespace {

// Missed fire times counted one by one at most; beyond, the record says "more than".
constexpr int kMaxMissedCounted = 10000;

std::string Rfc3339(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", time, absl::UTCTimeZone());
}

double GraceSeconds(const v1::ScheduleSpec& spec) {
  return spec.has_missed_run_grace_s() ? spec.missed_run_grace_s() : kDefaultMissedRunGraceSeconds;
}

// The schedule's jobs with `labels` (and, if given, in `states`), newest first.
absl::StatusOr<std::vector<v1::Job>> JobsLabelled(ScheduledJobs* jobs,
                                                  const std::map<std::string, std::string>& labels,
                                                  std::vector<v1::JobState> states) {
  v1::ListJobsRequest request;
  request.set_page_size(1000);
  for (const auto& [key, value] : labels) (*request.mutable_labels())[key] = value;
  for (v1::JobState state : states) request.add_states(state);
  KV_ASSIGN_OR_RETURN(v1::ListJobsResponse response, jobs->ListJobs(request));
  return std::vector<v1::Job>(response.jobs().begin(), response.jobs().end());
}

}  // namespace

ScheduleFirer::ScheduleFirer(ScheduleStore* store, ScheduledJobs* jobs, Clock* clock)
    : store_(store), jobs_(jobs), clock_(clock) {}

absl::Status ScheduleFirer::Load() {
  KV_ASSIGN_OR_RETURN(std::vector<v1::Schedule> schedules, store_->ListSchedules());
  const size_t before = entries_.size();
  const bool first = !loaded_;
  loaded_ = true;
  entries_.clear();
  for (v1::Schedule& schedule : schedules) {
    Entry entry;
    absl::StatusOr<CronExpression> cron =
        CronExpression::Parse(schedule.spec().cron(), schedule.spec().time_zone());
    if (cron.ok()) {
      entry.cron = *std::move(cron);
    } else if (first) {
      KV_LOG(ERROR) << "schedule will not fire: " << cron.status()
                    << " schedule=" << schedule.spec().name();
    }
    entry.schedule = std::move(schedule);
    UpdateNext(entry);
    const std::string name = entry.schedule.spec().name();
    entries_.emplace(name, std::move(entry));
  }
  if (first || entries_.size() != before) {
    KV_LOG(INFO) << "schedules loaded count=" << entries_.size();
  }
  return absl::OkStatus();
}

ScheduleFirer::Entry* ScheduleFirer::Find(const std::string& name) {
  auto found = entries_.find(name);
  return found == entries_.end() ? nullptr : &found->second;
}

const ScheduleFirer::Entry* ScheduleFirer::Find(const std::string& name) const {
  auto found = entries_.find(name);
  return found == entries_.end() ? nullptr : &found->second;
}

void ScheduleFirer::UpdateNext(Entry& entry) {
  entry.next.reset();
  if (entry.cron && !entry.schedule.paused()) {
    entry.next =
        entry.cron->NextAfter(absl::FromUnixMillis(entry.schedule.handled_until_unix_ms()));
  }
  entry.schedule.set_next_fire_unix_ms(entry.next ? absl::ToUnixMillis(*entry.next) : 0);
}

v1::Schedule ScheduleFirer::View(const Entry& entry) const { return entry.schedule; }

absl::StatusOr<v1::Schedule> ScheduleFirer::Create(const v1::ScheduleSpec& spec) {
  KV_RETURN_IF_ERROR(
      ValidateScheduleSpec(spec).ToStatus(absl::StrCat("schedule \"", spec.name(), "\"")));
  if (Find(spec.name()) != nullptr) {
    return absl::AlreadyExistsError(absl::StrCat("a schedule named \"", spec.name(), "\" exists"));
  }
  Entry entry;
  KV_ASSIGN_OR_RETURN(CronExpression cron, CronExpression::Parse(spec.cron(), spec.time_zone()));
  entry.cron = std::move(cron);
  const int64_t now_ms = absl::ToUnixMillis(clock_->Now());
  entry.schedule.mutable_spec()->CopyFrom(spec);
  if (entry.schedule.spec().time_zone().empty()) {
    entry.schedule.mutable_spec()->set_time_zone("UTC");
  }
  entry.schedule.set_create_unix_ms(now_ms);
  entry.schedule.set_handled_until_unix_ms(now_ms);
  UpdateNext(entry);
  KV_RETURN_IF_ERROR(store_->CreateSchedule(entry.schedule));
  KV_LOG(INFO) << "schedule created schedule=" << spec.name() << " cron=\"" << spec.cron()
               << "\" time_zone=" << entry.schedule.spec().time_zone()
               << " overlap=" << OverlapPolicyName(spec.overlap())
               << " next_fire=" << (entry.next ? Rfc3339(*entry.next) : std::string("none"));
  v1::Schedule view = entry.schedule;
  entries_.emplace(spec.name(), std::move(entry));
  return view;
}

absl::StatusOr<v1::Schedule> ScheduleFirer::Replace(const v1::ScheduleSpec& spec) {
  KV_RETURN_IF_ERROR(
      ValidateScheduleSpec(spec).ToStatus(absl::StrCat("schedule \"", spec.name(), "\"")));
  const auto it = entries_.find(spec.name());
  if (it == entries_.end()) {
    return absl::NotFoundError(absl::StrCat("no schedule named \"", spec.name(), "\""));
  }
  KV_ASSIGN_OR_RETURN(CronExpression cron, CronExpression::Parse(spec.cron(), spec.time_zone()));
  Entry replaced = it->second;
  replaced.cron = std::move(cron);
  replaced.schedule.mutable_spec()->CopyFrom(spec);
  if (replaced.schedule.spec().time_zone().empty()) {
    replaced.schedule.mutable_spec()->set_time_zone("UTC");
  }
  UpdateNext(replaced);
  KV_RETURN_IF_ERROR(store_->UpdateSchedule(replaced.schedule));
  it->second = std::move(replaced);
  KV_LOG(INFO) << "schedule replaced schedule=" << spec.name() << " cron=\"" << spec.cron()
               << "\" time_zone=" << it->second.schedule.spec().time_zone();
  return View(it->second);
}

absl::StatusOr<v1::Schedule> ScheduleFirer::Get(const std::string& name) const {
  const Entry* entry = Find(name);
  if (entry == nullptr)
    return absl::NotFoundError(absl::StrCat("no schedule named \"", name, "\""));
  v1::Schedule view = View(*entry);
  KV_ASSIGN_OR_RETURN(std::vector<v1::ScheduleFire> fires,
                      store_->RecentFires(name, kRecentFiresShown));
  for (v1::ScheduleFire& fire : fires) *view.add_recent_fires() = std::move(fire);
  return view;
}

std::vector<v1::Schedule> ScheduleFirer::List() const {
  std::vector<v1::Schedule> schedules;
  for (const auto& [name, entry] : entries_) schedules.push_back(View(entry));
  return schedules;
}

absl::StatusOr<v1::Schedule> ScheduleFirer::SetPaused(const std::string& name, bool paused) {
  Entry* entry = Find(name);
  if (entry == nullptr)
    return absl::NotFoundError(absl::StrCat("no schedule named \"", name, "\""));
  if (entry->schedule.paused() == paused) return Get(name);
  v1::Schedule updated = entry->schedule;
  updated.set_paused(paused);
  // Resuming counts fire times from now: what fell in the pause is not caught up.
  if (!paused) updated.set_handled_until_unix_ms(absl::ToUnixMillis(clock_->Now()));
  KV_RETURN_IF_ERROR(store_->UpdateSchedule(updated));
  entry->schedule = std::move(updated);
  UpdateNext(*entry);
  KV_LOG(INFO) << "schedule " << (paused ? "paused" : "resumed") << " schedule=" << name;
  return Get(name);
}

absl::Status ScheduleFirer::Delete(const std::string& name) {
  if (Find(name) == nullptr) {
    return absl::NotFoundError(absl::StrCat("no schedule named \"", name, "\""));
  }
  KV_RETURN_IF_ERROR(store_->DeleteSchedule(name));
  entries_.erase(name);
  KV_LOG(INFO) << "schedule deleted schedule=" << name;
  return absl::OkStatus();
}

absl::StatusOr<v1::ScheduleFire> ScheduleFirer::RunNow(const std::string& name) {
  Entry* entry = Find(name);
  if (entry == nullptr)
    return absl::NotFoundError(absl::StrCat("no schedule named \"", name, "\""));
  const absl::Time now = clock_->Now();
  v1::ScheduleFire fire;
  fire.set_run_now(true);
  fire.set_handled_unix_ms(absl::ToUnixMillis(now));
  Fire(*entry, now, &fire);
  Record(*entry, fire, absl::FromUnixMillis(entry->schedule.handled_until_unix_ms()));
  if (fire.outcome() == v1::FIRE_FAILED) return absl::FailedPreconditionError(fire.detail());
  return fire;
}

void ScheduleFirer::Tick() {
  const absl::Time now = clock_->Now();
  for (auto& [name, entry] : entries_) {
    if (entry.next && *entry.next <= now) FireDue(entry, now);
  }
}

namespace {

// The last fire time of `cron` before `end`, given one (`known`) before it: searched back from
// `end` in doubling steps (the window that finds one holds few), so a record of missed fire times
// ends at a fire time of the expression (not at the window's edge) in a few dozen NextAfter calls
// however long the controller was down.
absl::Time LastFireBefore(const CronExpression& cron, absl::Time end, absl::Time known) {
  absl::Duration back = absl::Minutes(1);
  while (true) {
    // Never before `known`: the first probe that would be finds it.
    const absl::Time probe = end - back > known ? end - back : known - absl::Seconds(1);
    std::optional<absl::Time> at = cron.NextAfter(probe);
    if (at && *at < end) {
      // At most a few fire times lie between end - back and end: walk to the last.
      for (std::optional<absl::Time> next = cron.NextAfter(*at); next && *next < end;
           next = cron.NextAfter(*at)) {
        at = next;
      }
      return *at;
    }
    back *= 2;
  }
}

}  // namespace

void ScheduleFirer::FireDue(Entry& entry, absl::Time now) {
  const CronExpression& cron = *entry.cron;
  const absl::Time window_start = now - absl::Seconds(GraceSeconds(entry.schedule.spec()));
  std::optional<absl::Time> at = entry.next;
  // Fire times before the grace window were missed.
  int missed = 0;
  absl::Time first_missed;
  absl::Time last_missed;
  while (at && *at < window_start && missed < kMaxMissedCounted) {
    if (missed == 0) first_missed = *at;
    last_missed = *at;
    ++missed;
    at = cron.NextAfter(*at);
  }
  const bool more_missed = missed == kMaxMissedCounted && at && *at < window_start;
  if (more_missed) {
    last_missed = LastFireBefore(cron, window_start, *at);
    at = cron.NextAfter(last_missed);
  }
  if (missed > 0) {
    v1::ScheduleFire fire;
    fire.set_fire_unix_ms(absl::ToUnixMillis(last_missed));
    fire.set_handled_unix_ms(absl::ToUnixMillis(now));
    fire.set_outcome(v1::FIRE_MISSED);
    fire.set_detail(absl::StrCat(more_missed ? "more than " : "", missed, " fire time(s) from ",
                                 Rfc3339(first_missed), " to ", Rfc3339(last_missed),
                                 " passed while the controller was down, beyond the grace of ",
                                 GraceSeconds(entry.schedule.spec()), " s"));
    Record(entry, fire, last_missed);
  }
  // Of the fire times within the grace, the latest runs and stands for the others.
  std::optional<absl::Time> latest;
  int folded = 0;
  while (at && *at <= now) {
    if (latest) ++folded;
    latest = at;
    at = cron.NextAfter(*at);
  }
  if (!latest) return;
  v1::ScheduleFire fire;
  fire.set_fire_unix_ms(absl::ToUnixMillis(*latest));
  fire.set_handled_unix_ms(absl::ToUnixMillis(now));
  Fire(entry, *latest, &fire);
  if (folded > 0) {
    fire.set_detail(absl::StrCat(fire.detail(), fire.detail().empty() ? "" : "; ", "stands for ",
                                 folded,
                                 " earlier fire time(s) within the grace (the controller "
                                 "was down)"));
  }
  Record(entry, fire, *latest);
}

void ScheduleFirer::Fire(const Entry& entry, absl::Time fire_time, v1::ScheduleFire* fire) {
  const v1::ScheduleSpec& spec = entry.schedule.spec();
  const std::string fire_label = Rfc3339(fire_time);
  // A job for this very fire (submitted by a controller that died before recording it)?
  absl::StatusOr<std::vector<v1::Job>> same =
      fire->run_now()
          ? std::vector<v1::Job>{}
          : JobsLabelled(jobs_, {{kScheduleLabel, spec.name()}, {kFireTimeLabel, fire_label}}, {});
  if (same.ok() && !same->empty()) {
    fire->set_outcome(v1::FIRE_SUBMITTED);
    fire->set_job_id(same->front().job_id());
    fire->set_detail("submitted before the controller restarted");
    return;
  }
  absl::StatusOr<std::vector<v1::Job>> active = JobsLabelled(
      jobs_, {{kScheduleLabel, spec.name()}}, {v1::JOB_STATE_QUEUED, v1::JOB_STATE_RUNNING});
  if (!same.ok() || !active.ok()) {
    fire->set_outcome(v1::FIRE_FAILED);
    fire->set_detail(absl::StrCat("cannot list the schedule's jobs: ",
                                  (!same.ok() ? same.status() : active.status()).message()));
    return;
  }
  if (!active->empty()) {
    const v1::Job& previous = active->front();
    auto fired_for = previous.spec().labels().find(kFireTimeLabel);
    const std::string previous_job =
        absl::StrCat("job ", previous.job_id(), " (fired for ",
                     fired_for == previous.spec().labels().end() ? "?" : fired_for->second, ")");
    switch (spec.overlap()) {
      case v1::OVERLAP_QUEUE:
        fire->set_detail(absl::StrCat("queued behind ", previous_job));
        break;
      case v1::OVERLAP_REPLACE:
        for (const v1::Job& job : *active) {
          v1::CancelJobRequest cancel;
          cancel.set_job_id(job.job_id());
          cancel.set_reason(
              absl::StrCat("replaced by schedule ", spec.name(), "'s fire of ", fire_label));
          absl::StatusOr<v1::Job> cancelled = jobs_->CancelJob(cancel);
          if (!cancelled.ok()) {
            KV_LOG(WARNING) << "schedule could not cancel the job it replaces: "
                            << cancelled.status() << " schedule=" << spec.name()
                            << " job_id=" << job.job_id();
          }
        }
        fire->set_detail(absl::StrCat("replaced ", previous_job));
        break;
      default:
        fire->set_outcome(v1::FIRE_SKIPPED_OVERLAP);
        fire->set_detail(
            absl::StrCat(previous_job, " is still ",
                         previous.state() == v1::JOB_STATE_RUNNING ? "running" : "queued"));
        return;
    }
  }
  v1::SubmitJobRequest request;
  *request.mutable_spec() = spec.job();
  if (request.spec().name().empty()) request.mutable_spec()->set_name(spec.name());
  (*request.mutable_spec()->mutable_labels())[kScheduleLabel] = spec.name();
  (*request.mutable_spec()->mutable_labels())[kFireTimeLabel] = fire_label;
  request.set_request_id(
      fire->run_now() ? absl::StrCat("schedule/", spec.name(), "/now/", fire->handled_unix_ms())
                      : absl::StrCat("schedule/", spec.name(), "/", absl::ToUnixMillis(fire_time)));
  absl::StatusOr<v1::SubmitJobResponse> submitted = jobs_->SubmitJob(request);
  if (!submitted.ok()) {
    fire->set_outcome(v1::FIRE_FAILED);
    fire->set_detail(absl::StrCat("the job was not submitted: ", submitted.status().message()));
    return;
  }
  fire->set_outcome(v1::FIRE_SUBMITTED);
  fire->set_job_id(submitted->job_id());
}

void ScheduleFirer::Record(Entry& entry, const v1::ScheduleFire& fire, absl::Time handled_until) {
  v1::Schedule updated = entry.schedule;
  updated.set_handled_until_unix_ms(absl::ToUnixMillis(handled_until));
  absl::StatusOr<bool> recorded = store_->RecordFire(updated, fire);
  const std::string& name = entry.schedule.spec().name();
  if (!recorded.ok()) {
    // The mark stays: the next tick tries this fire again, and the job (if any) is found by its
    // labels, so it is not submitted twice.
    KV_LOG(ERROR) << "schedule fire not recorded: " << recorded.status() << " schedule=" << name;
    return;
  }
  entry.schedule = std::move(updated);
  UpdateNext(entry);
  const std::string line = absl::StrCat(
      "schedule fired schedule=", name, " outcome=", FireOutcomeName(fire.outcome()),
      " fire_time=", fire.run_now() ? "now" : Rfc3339(absl::FromUnixMillis(fire.fire_unix_ms())),
      fire.job_id().empty() ? "" : " job_id=", fire.job_id(),
      fire.detail().empty() ? "" : " detail=\"", fire.detail(), fire.detail().empty() ? "" : "\"",
      *recorded ? "" : " (recorded before)");
  if (fire.outcome() == v1::FIRE_FAILED) {
    KV_LOG(WARNING) << line;
  } else {
    KV_LOG(INFO) << line;
  }
}

}  // namespace kvbench::controller
