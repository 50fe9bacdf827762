// Cron expressions with time zones, against fire times derived by hand from the
// calendar and the zones' 2026 rules: America/New_York springs forward on Sun 2026-03-08 at
// 02:00 EST (→ 03:00 EDT, UTC-5 → UTC-4) and falls back on Sun 2026-11-01 at 02:00 EDT
// (→ 01:00 EST); Europe/Berlin springs forward on Sun 2026-03-29 at 02:00 CET (→ 03:00 CEST).

#include "controller/schedule/cron_expression.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace kvbench::controller {
namespace {

absl::Time Utc(const std::string& rfc3339) {
  absl::Time time;
  std::string error;
  REQUIRE(absl::ParseTime(absl::RFC3339_full, rfc3339, &time, &error));
  return time;
}

std::string Text(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", time, absl::UTCTimeZone());
}

struct FireCase {
  std::string expression;
  std::string zone;
  std::string after;               // RFC 3339
  std::vector<std::string> fires;  // the next fire times, in order, UTC
};

TEST_CASE("fire times match the calendar across both DST changes", "[schedule][cron]") {
  const std::vector<FireCase> cases = {
      {"*/15 * * * *",
       "UTC",
       "2026-01-01T00:07:00Z",
       {"2026-01-01T00:15:00Z", "2026-01-01T00:30:00Z", "2026-01-01T00:45:00Z",
        "2026-01-01T01:00:00Z"}},
      // Strictly after: a fire time itself is not its own next.
      {"0 * * * *", "UTC", "2026-01-01T05:00:00Z", {"2026-01-01T06:00:00Z"}},
      {"@hourly", "UTC", "2026-01-01T05:59:59Z", {"2026-01-01T06:00:00Z"}},
      {"@daily", "UTC", "2026-01-01T00:00:00Z", {"2026-01-02T00:00:00Z"}},
      {"@weekly", "UTC", "2026-01-01T00:00:00Z", {"2026-01-04T00:00:00Z"}},  // a Sunday
      {"@monthly", "UTC", "2026-01-15T00:00:00Z", {"2026-02-01T00:00:00Z"}},
      {"@yearly", "UTC", "2026-01-15T00:00:00Z", {"2027-01-01T00:00:00Z"}},
      // Lists, ranges, steps and names.
      {"0,30 9-10 * * *",
       "UTC",
       "2026-01-01T09:10:00Z",
       {"2026-01-01T09:30:00Z", "2026-01-01T10:00:00Z", "2026-01-01T10:30:00Z",
        "2026-01-02T09:00:00Z"}},
      {"10-50/20 * * * *",
       "UTC",
       "2026-01-01T00:00:00Z",
       {"2026-01-01T00:10:00Z", "2026-01-01T00:30:00Z", "2026-01-01T00:50:00Z",
        "2026-01-01T01:10:00Z"}},
      {"45/10 * * * *",
       "UTC",
       "2026-01-01T00:00:00Z",
       {"2026-01-01T00:45:00Z", "2026-01-01T00:55:00Z", "2026-01-01T01:45:00Z"}},
      {"5 4 * * sun",
       "UTC",
       "2026-01-01T00:00:00Z",
       {"2026-01-04T04:05:00Z", "2026-01-11T04:05:00Z"}},
      {"0 0 * * 7", "UTC", "2026-01-01T00:00:00Z", {"2026-01-04T00:00:00Z"}},  // 7 = Sunday
      {"0 12 * Feb,Mar Mon-Fri",
       "UTC",
       "2026-02-27T12:00:00Z",  // Fri → Mon 2 Mar
       {"2026-03-02T12:00:00Z"}},
      // Day of month OR day of week when both are restricted: the 1st and every Monday.
      {"0 0 1 * MON",
       "UTC",
       "2026-05-01T00:00:00Z",  // Fri 1 May
       {"2026-05-04T00:00:00Z", "2026-05-11T00:00:00Z", "2026-05-18T00:00:00Z",
        "2026-05-25T00:00:00Z", "2026-06-01T00:00:00Z", "2026-06-08T00:00:00Z"}},
      // A day-of-month field starting with '*' is unrestricted for that rule: AND.
      {"0 0 */10 * MON",
       "UTC",
       "2026-01-01T00:00:00Z",  // days 1, 11, 21, 31 that are Mondays
       {"2026-05-11T00:00:00Z", "2026-06-01T00:00:00Z", "2026-08-31T00:00:00Z"}},
      {"0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z", {"2028-02-29T00:00:00Z"}},
      // Weekdays at 09:00 Berlin: Friday in CET (UTC+1), Monday in CEST (UTC+2).
      {"0 9 * * 1-5",
       "Europe/Berlin",
       "2026-03-27T08:00:00Z",
       {"2026-03-30T07:00:00Z", "2026-03-31T07:00:00Z"}},
      // New York, spring forward: 02:00 and 02:30 do not exist on 8 March; a fixed-time
      // schedule fires once at the change (03:00 EDT = 07:00Z), then at 02:00 EDT the next day.
      {"0 2 * * *",
       "America/New_York",
       "2026-03-07T17:00:00Z",
       {"2026-03-08T07:00:00Z", "2026-03-09T06:00:00Z"}},
      {"*/15 2 * * *",
       "America/New_York",
       "2026-03-08T06:00:00Z",  // 01:00 EST
       {"2026-03-08T07:00:00Z", "2026-03-09T06:00:00Z"}},
      // An hourly schedule has no fire in the gap: 01:30 EST, then 03:30 EDT.
      {"30 * * * *",
       "America/New_York",
       "2026-03-08T06:00:00Z",
       {"2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z", "2026-03-08T08:30:00Z"}},
      // New York, fall back: 01:30 happens at 05:30Z (EDT) and again at 06:30Z (EST). A fixed
      // time fires at the first only; an hourly schedule at both.
      {"30 1 * * *",
       "America/New_York",
       "2026-11-01T04:00:00Z",
       {"2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"}},
      {"30 * * * *",
       "America/New_York",
       "2026-11-01T04:00:00Z",
       {"2026-11-01T04:30:00Z", "2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z",
        "2026-11-01T07:30:00Z"}},
      // Starting inside the repeated hour (01:40 EST, the second pass).
      {"*/30 * * * *",
       "America/New_York",
       "2026-11-01T06:40:00Z",
       {"2026-11-01T07:00:00Z", "2026-11-01T07:30:00Z"}},
      {"0 0 * * *",
       "Asia/Kolkata",
       "2026-01-01T00:00:00Z",  // UTC+5:30
       {"2026-01-01T18:30:00Z"}},
  };
  for (const FireCase& c : cases) {
    INFO(c.expression << " in " << c.zone << " after " << c.after);
    absl::StatusOr<CronExpression> cron = CronExpression::Parse(c.expression, c.zone);
    REQUIRE(cron.ok());
    absl::Time at = Utc(c.after);
    for (const std::string& expected : c.fires) {
      std::optional<absl::Time> next = cron->NextAfter(at);
      REQUIRE(next.has_value());
      CHECK(Text(*next) == expected);
      at = *next;
    }
  }
}

TEST_CASE("bad expressions and zones are errors naming the field", "[schedule][cron]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"60 * * * *", "minute: 60 is outside 0-59"},
      {"* 24 * * *", "hour: 24 is outside 0-23"},
      {"* * 0 * *", "day-of-month: 0 is outside 1-31"},
      {"* * * 13 *", "month: 13 is outside 1-12"},
      {"* * * * 8", "day-of-week: 8 is outside 0-7"},
      {"* * * * FUNDAY", "day-of-week: \"FUNDAY\" is not a number or name in 0-7"},
      {"* * * *", "has 4 fields; a cron expression has 5"},
      {"* * * * * *", "has 6 fields"},
      {"*/0 * * * *", "minute: step \"0\" is not a number in 1-60"},
      {"5-1 * * * *", "minute: range \"5-1\" runs backwards"},
      {"1,,2 * * * *", "minute: \"1,,2\" has an empty list item"},
      {"-1 * * * *", "minute: \"\" is not a number in 0-59"},
      {"@every 5m", "is not a shortcut"},
      {"0 0 30 2 *", "never fires"},
      {"0 0 31 4,6,9,11 *", "never fires"},
  };
  for (const auto& [expression, message] : cases) {
    INFO(expression);
    absl::StatusOr<CronExpression> cron = CronExpression::Parse(expression, "UTC");
    REQUIRE_FALSE(cron.ok());
    CHECK(cron.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(cron.status().message()), Catch::Contains(message));
  }
  absl::StatusOr<CronExpression> mars = CronExpression::Parse("0 0 * * *", "Mars/Olympus_Mons");
  REQUIRE_FALSE(mars.ok());
  CHECK_THAT(std::string(mars.status().message()),
             Catch::Contains("time_zone: \"Mars/Olympus_Mons\" is not an IANA time zone"));
}

TEST_CASE("an empty zone is UTC", "[schedule][cron]") {
  absl::StatusOr<CronExpression> cron = CronExpression::Parse("0 3 * * *", "");
  REQUIRE(cron.ok());
  CHECK(cron->time_zone_name() == "UTC");
  CHECK(Text(*cron->NextAfter(Utc("2026-01-01T00:00:00Z"))) == "2026-01-01T03:00:00Z");
}

}  // namespace
}  // namespace kvbench::controller
