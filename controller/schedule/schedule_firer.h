#pragma once

// Schedules in the controller: creates, lists, pauses and deletes them, and fires
// each one's job when its cron expression says, exactly once per fire time.
//
// Firing. Tick() (the controller calls it every second) looks at each active schedule's fire
// times after `handled_until`, its mark of what it has dealt with:
// - fire times more than the grace (missed_run_grace_s, default 600 s) in the past were missed
//   (the controller was down): one FIRE_MISSED record names how many and when;
// - of those within the grace, the latest fires (once: a controller down across several fire
//   times of an every-minute schedule runs one job, not a burst) and the record says how many it
//   stands for;
// - the overlap policy decides what happens when the schedule's previous job is still queued or
//   running: skip (recorded), queue, or replace (the previous one is cancelled).
// Exactly once: a fire's job is submitted with the request id "schedule/<name>/<fire unix ms>"
// (the job store refuses a second job for it) and labelled with the fire time, then the fire is
// recorded with the schedule's new mark in one transaction keyed by the fire time. A controller
// killed between the two finds the job by its labels when it comes back, and records it.
//
// Not thread-safe: the controller calls it on its executor's thread only.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/time/clock.h"
#include "controller/schedule/cron_expression.h"
#include "controller/schedule/scheduled_jobs.h"
#include "controller/store/schedule_store.h"
#include "kvbench/v1/schedule.pb.h"

namespace kvbench::controller {

// Fires shown by Get (newest first).
inline constexpr int kRecentFiresShown = 20;

class ScheduleFirer {
 public:
  ScheduleFirer(ScheduleStore* store, ScheduledJobs* jobs, Clock* clock);

  // Reads the stored schedules (again: a standby's views reload on each call); a stored one that
  // no longer parses (a tzdata without its zone) is kept but never fires, with an ERROR line.
  absl::Status Load();

  // INVALID_ARGUMENT listing every problem (ValidateScheduleSpec); ALREADY_EXISTS for a taken
  // name. Fire times from now on count.
  absl::StatusOr<v1::Schedule> Create(const v1::ScheduleSpec& spec);
  // Replaces an existing schedule's spec (job, cron, zone, overlap): its fires, what was handled
  // and its pause stay, so its history goes on (and shows the change a new build
  // brings). INVALID_ARGUMENT as Create; NOT_FOUND naming it.
  absl::StatusOr<v1::Schedule> Replace(const v1::ScheduleSpec& spec);
  // With its recent fires. NOT_FOUND naming it.
  absl::StatusOr<v1::Schedule> Get(const std::string& name) const;
  // By name, without fires.
  std::vector<v1::Schedule> List() const;
  // Pausing stops fires; resuming counts fire times from the resume on (none are caught up).
  absl::StatusOr<v1::Schedule> SetPaused(const std::string& name, bool paused);
  // The schedule and its fire records; the jobs it fired stay.
  absl::Status Delete(const std::string& name);
  // Fires now (labelled with now as its fire time), applying the overlap policy; works while
  // paused too.
  absl::StatusOr<v1::ScheduleFire> RunNow(const std::string& name);

  // Fires what is due (see the top of this file).
  void Tick();

 private:
  struct Entry {
    v1::Schedule schedule;
    std::optional<CronExpression> cron;  // nullopt: stored but no longer parses
    std::optional<absl::Time> next;      // the first fire time after handled_until
  };

  Entry* Find(const std::string& name);
  const Entry* Find(const std::string& name) const;
  void UpdateNext(Entry& entry);
  v1::Schedule View(const Entry& entry) const;
  void FireDue(Entry& entry, absl::Time now);
  // Submits (or skips, per the overlap policy) the job of a fire at `fire_time`; fills `fire`.
  void Fire(const Entry& entry, absl::Time fire_time, v1::ScheduleFire* fire);
  // Stores `fire` and the entry's new mark; logs what happened.
  void Record(Entry& entry, const v1::ScheduleFire& fire, absl::Time handled_until);

  ScheduleStore* const store_;
  ScheduledJobs* const jobs_;
  Clock* const clock_;
  std::map<std::string, Entry> entries_;
  bool loaded_ = false;  // Load logs the first time, then when the count changes
};

}  // namespace kvbench::controller
