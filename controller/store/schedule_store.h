#pragma once

// The durable state of schedules, beside the jobs: the schedules themselves and
// one record per fire, keyed by the schedule's name and the fire's key (its scheduled time), so
// that a fire is handled once whatever happens to the controller around it.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kvbench/v1/schedule.pb.h"

namespace kvbench::controller {

// The key of a fire: its scheduled time in unix ms; a run-now fire, which has none, is keyed by
// minus the time it was asked for (never equal to a scheduled one).
int64_t FireKey(const v1::ScheduleFire& fire);

class ScheduleStore {
 public:
  virtual ~ScheduleStore() = default;

  // ALREADY_EXISTS when a schedule of that name exists. recent_fires are not stored.
  virtual absl::Status CreateSchedule(const v1::Schedule& schedule) = 0;
  // NOT_FOUND when there is none of that name.
  virtual absl::Status UpdateSchedule(const v1::Schedule& schedule) = 0;
  // By name, without recent_fires.
  virtual absl::StatusOr<std::vector<v1::Schedule>> ListSchedules() = 0;
  // The schedule and its fires; NOT_FOUND when there is none. Jobs it fired are kept.
  virtual absl::Status DeleteSchedule(const std::string& name) = 0;
  // Records `fire` and stores `schedule` (its new state) in one transaction. False, and nothing
  // written, when a fire of that key was recorded before.
  virtual absl::StatusOr<bool> RecordFire(const v1::Schedule& schedule,
                                          const v1::ScheduleFire& fire) = 0;
  // The newest `limit` fires, newest first.
  virtual absl::StatusOr<std::vector<v1::ScheduleFire>> RecentFires(const std::string& name,
                                                                    int limit) = 0;
};

}  // namespace kvbench::controller
