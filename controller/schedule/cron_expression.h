#pragma once

// A cron expression of the 5 standard fields with an IANA time zone: when a schedule
// fires. Pure: no clock; the time zone's rules come from the system's tzdata (absl::LoadTimeZone).
//
//   minute  hour  day-of-month  month  day-of-week
//   0-59    0-23  1-31          1-12   0-7 (0 and 7 are Sunday)
//                               JAN-DEC  SUN-SAT (names in any case)
// Each field is `*`, a value, a range `a-b`, a step `*/s`, `a-b/s` or `a/s` (a to the field's
// end), or a comma-separated list of those. Shortcuts: @yearly (@annually), @monthly, @weekly,
// @daily (@midnight), @hourly.
//
// Semantics follow Vixie cron / cronie, which is what operators know:
// - Day of month and day of week: when both are restricted (neither starts with `*`) a day
//   matches if either matches ("0 0 1 * MON" fires on the 1st and on every Monday); otherwise
//   only the restricted one counts.
// - Fire times are civil times in the zone. When the clocks spring forward, a civil time that
//   does not exist that day fires once at the transition (02:30 in a 02:00→03:00 gap fires at
//   03:00), if the hour field is restricted; an expression whose hour field starts with `*`
//   (an interval, e.g. hourly) simply has no fire in the gap. When the clocks fall back, a civil
//   time that occurs twice fires at its first occurrence only, unless the hour field starts with
//   `*`, in which case it fires at both (hourly stays hourly).

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace kvbench::controller {

class CronExpression {
 public:
  // INVALID_ARGUMENT naming the field and what is wrong ("hour: 24 is outside 0-23"), or an
  // unknown time zone ("time_zone: \"Mars/Base\" is not an IANA time zone"), or an expression
  // that never fires ("0 0 30 2 *": February has no 30th).
  static absl::StatusOr<CronExpression> Parse(absl::string_view expression,
                                              absl::string_view time_zone);

  // The first fire time strictly after `after`; nullopt when there is none in the next 30 years.
  std::optional<absl::Time> NextAfter(absl::Time after) const;

  // True when the civil minute matches the five fields (ignores the zone).
  bool Matches(absl::CivilMinute minute) const;

  const std::string& expression() const { return expression_; }
  const std::string& time_zone_name() const { return time_zone_name_; }

 private:
  CronExpression() = default;

  // The first matching civil minute >= `from` and <= `limit`.
  std::optional<absl::CivilMinute> NextMatch(absl::CivilMinute from, absl::CivilMinute limit) const;
  bool DayMatches(absl::CivilDay day) const;

  std::string expression_;
  std::string time_zone_name_;
  absl::TimeZone zone_;
  uint64_t minutes_ = 0;        // bit m: minute m
  uint32_t hours_ = 0;          // bit h
  uint32_t days_of_month_ = 0;  // bit d (1-31)
  uint32_t months_ = 0;         // bit m (1-12)
  uint32_t days_of_week_ = 0;   // bit d (0-6, Sunday 0)
  bool day_of_month_star_ = false;
  bool day_of_week_star_ = false;
  bool hour_star_ = false;
};

}  // namespace kvbench::controller
