#include "controller/schedule/schedule_spec_validator.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "controller/schedule/cron_expression.h"
#include "controller/spec/job_spec_validator.h"

namespace kvbench::controller {
namespace {

bool NameOk(const std::string& name) {
  if (name.empty() || name.size() > static_cast<size_t>(kMaxScheduleNameLength)) return false;
  auto lower_or_digit = [](char c) {
    return absl::ascii_islower(static_cast<unsigned char>(c)) ||
           absl::ascii_isdigit(static_cast<unsigned char>(c));
  };
  if (!lower_or_digit(name[0])) return false;
  for (char c : name) {
    if (!lower_or_digit(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

const char* OverlapPolicyName(v1::OverlapPolicy policy) {
  switch (policy) {
    case v1::OVERLAP_QUEUE:
      return "queue";
    case v1::OVERLAP_REPLACE:
      return "replace";
    default:
      return "skip";
  }
}

const char* FireOutcomeName(v1::FireOutcome outcome) {
  switch (outcome) {
    case v1::FIRE_SUBMITTED:
      return "submitted";
    case v1::FIRE_SKIPPED_OVERLAP:
      return "skipped";
    case v1::FIRE_MISSED:
      return "missed";
    case v1::FIRE_FAILED:
      return "failed";
    default:
      return "-";
  }
}

FieldErrors ValidateScheduleSpec(const v1::ScheduleSpec& spec) {
  FieldErrors errors;
  if (!NameOk(spec.name())) {
    errors.Add("name", absl::StrCat("\"", spec.name(), "\" is not 1-", kMaxScheduleNameLength,
                                    " lowercase letters, digits, '-', '_', '.' starting with a "
                                    "letter or digit"));
  }
  if (spec.cron().empty()) {
    errors.Add("cron", "is required (e.g. \"0 2 * * *\" or \"@daily\")");
  } else {
    absl::StatusOr<CronExpression> cron = CronExpression::Parse(spec.cron(), spec.time_zone());
    if (!cron.ok()) {
      const std::string message(cron.status().message());
      const bool zone = message.rfind("time_zone: ", 0) == 0;
      errors.Add(zone ? "time_zone" : "cron", zone ? message.substr(11) : message);
    }
  }
  if (spec.has_missed_run_grace_s()) {
    const double grace = spec.missed_run_grace_s();
    if (!std::isfinite(grace) || grace < 0 || grace > kMaxMissedRunGraceSeconds) {
      errors.Add("missed_run_grace_s",
                 absl::StrCat(grace, " is outside 0-", kMaxMissedRunGraceSeconds, " s"));
    }
  }
  if (!spec.has_job()) {
    errors.Add("job", "is required: the job spec each fire submits");
    return errors;
  }
  for (const char* label : {kScheduleLabel, kFireTimeLabel}) {
    if (spec.job().labels().count(label) > 0) {
      errors.Add(absl::StrCat("job.labels.", label), "is set by the controller on each fire");
    }
  }
  const FieldErrors job_errors = spec::ValidateJobSpec(spec.job());
  for (const FieldError& error : job_errors.errors()) {
    errors.Add(error.field.empty() ? "job" : absl::StrCat("job.", error.field), error.message);
  }
  return errors;
}

}  // namespace kvbench::controller
