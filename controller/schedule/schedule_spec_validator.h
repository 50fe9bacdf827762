#pragma once

#include "common/json/proto_json.h"
#include "kvbench/v1/schedule.pb.h"

namespace kvbench::controller {

// Labels every fired job carries: its schedule's name and the fire's scheduled time
// (RFC 3339, UTC). `kvctl history` and the overlap policy find a schedule's jobs by them.
inline constexpr char kScheduleLabel[] = "kvbench.schedule";
inline constexpr char kFireTimeLabel[] = "kvbench.fire_time";
// A missed fire still runs when the controller is back within this (Kubernetes'
// startingDeadlineSeconds).
inline constexpr double kDefaultMissedRunGraceSeconds = 600;
inline constexpr double kMaxMissedRunGraceSeconds = 7 * 24 * 3600;
inline constexpr int kMaxScheduleNameLength = 63;

// "skip", "queue", "replace": how kvctl takes and prints an overlap policy.
const char* OverlapPolicyName(v1::OverlapPolicy policy);

// "submitted", "skipped", "missed", "failed": how logs and kvctl name a fire's outcome.
const char* FireOutcomeName(v1::FireOutcome outcome);

// Every problem of a schedule, each naming its field: the name, the cron expression and time
// zone (parsed), the grace, and the job spec as a submit would check it ("job.concurrency"),
// including that it does not set the labels the controller adds. Pure but for tzdata.
FieldErrors ValidateScheduleSpec(const v1::ScheduleSpec& spec);

}  // namespace kvbench::controller
