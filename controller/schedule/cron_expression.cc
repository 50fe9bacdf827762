#include "controller/schedule/cron_expression.h"

#include <cstdint>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "controller/schedule/iana_time_zone.h"

namespace kvbench::controller {
namespace {

// A civil time that the clocks skip or repeat is at most this far from its neighbours: the
// largest DST shift in tzdata is 2 h (and a few historical 3 h ones); scanning this much before
// and after keeps the result exact for all of them.
constexpr int kMaxShiftMinutes = 3 * 60;
// How far NextAfter looks: "0 0 29 2 1" (Feb 29 or a Monday) fires often, but a Feb 29 that is
// also a given weekday needs up to 28 years.
constexpr int kHorizonYears = 30;

struct FieldSpec {
  const char* name;
  int min;
  int max;
  const char* const* names;  // names[i] is value min + i, or nullptr
};

const char* const kMonthNames[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                   "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
const char* const kDayNames[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

constexpr FieldSpec kMinute{"minute", 0, 59, nullptr};
constexpr FieldSpec kHour{"hour", 0, 23, nullptr};
constexpr FieldSpec kDayOfMonth{"day-of-month", 1, 31, nullptr};
constexpr FieldSpec kMonth{"month", 1, 12, kMonthNames};
// 7 is Sunday too; folded onto 0 after parsing.
constexpr FieldSpec kDayOfWeek{"day-of-week", 0, 7, kDayNames};

absl::StatusOr<int> ParseValue(const FieldSpec& spec, absl::string_view text) {
  int value = 0;
  if (absl::SimpleAtoi(text, &value) && !text.empty() && absl::ascii_isdigit(text[0])) {
    if (value < spec.min || value > spec.max) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec.name, ": ", text, " is outside ", spec.min, "-", spec.max));
    }
    return value;
  }
  if (spec.names != nullptr) {
    const std::string upper = absl::AsciiStrToUpper(text);
    const int count = spec.names == kMonthNames ? 12 : 7;
    for (int i = 0; i < count; ++i) {
      if (upper == spec.names[i]) return spec.min + i;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      spec.name, ": \"", text, "\" is not a ", spec.names != nullptr ? "number or name" : "number",
      " in ", spec.min, "-", spec.max));
}

// One field → a bit set over [spec.min, spec.max].
absl::StatusOr<uint64_t> ParseField(const FieldSpec& spec, absl::string_view field) {
  if (field.empty()) return absl::InvalidArgumentError(absl::StrCat(spec.name, ": is empty"));
  uint64_t bits = 0;
  for (absl::string_view item : absl::StrSplit(field, ',')) {
    if (item.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec.name, ": \"", field, "\" has an empty list item"));
    }
    int step = 1;
    absl::string_view range = item;
    const size_t slash = item.find('/');
    if (slash != absl::string_view::npos) {
      range = item.substr(0, slash);
      const absl::string_view step_text = item.substr(slash + 1);
      if (!absl::SimpleAtoi(step_text, &step) || step < 1 || step > spec.max - spec.min + 1 ||
          step_text.empty() || !absl::ascii_isdigit(step_text[0])) {
        return absl::InvalidArgumentError(absl::StrCat(spec.name, ": step \"", step_text,
                                                       "\" is not a number in 1-",
                                                       spec.max - spec.min + 1));
      }
    }
    int low = spec.min;
    int high = spec.max;
    if (range != "*") {
      const size_t dash = range.find('-');
      if (dash == absl::string_view::npos) {
        auto value = ParseValue(spec, range);
        if (!value.ok()) return value.status();
        low = *value;
        // "a/s" runs from a to the field's end; a bare "a" is a single value.
        high = slash != absl::string_view::npos ? spec.max : *value;
      } else {
        auto first = ParseValue(spec, range.substr(0, dash));
        if (!first.ok()) return first.status();
        auto last = ParseValue(spec, range.substr(dash + 1));
        if (!last.ok()) return last.status();
        if (*first > *last) {
          return absl::InvalidArgumentError(
              absl::StrCat(spec.name, ": range \"", range, "\" runs backwards"));
        }
        low = *first;
        high = *last;
      }
    }
    for (int value = low; value <= high; value += step) bits |= uint64_t{1} << value;
  }
  return bits;
}

absl::string_view Shortcut(absl::string_view expression) {
  const std::string lower = absl::AsciiStrToLower(expression);
  if (lower == "@yearly" || lower == "@annually") return "0 0 1 1 *";
  if (lower == "@monthly") return "0 0 1 * *";
  if (lower == "@weekly") return "0 0 * * 0";
  if (lower == "@daily" || lower == "@midnight") return "0 0 * * *";
  if (lower == "@hourly") return "0 * * * *";
  return "";
}

}  // namespace

absl::StatusOr<CronExpression> CronExpression::Parse(absl::string_view expression,
                                                     absl::string_view time_zone) {
  CronExpression cron;
  cron.expression_ = std::string(absl::StripAsciiWhitespace(expression));
  absl::string_view text = cron.expression_;
  if (!text.empty() && text[0] == '@') {
    text = Shortcut(text);
    if (text.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", cron.expression_,
                       "\" is not a shortcut (@yearly, @annually, @monthly, @weekly, @daily, "
                       "@midnight, @hourly)"));
    }
  }
  std::vector<absl::string_view> fields =
      absl::StrSplit(text, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (fields.size() != 5) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", cron.expression_, "\" has ", fields.size(),
        " fields; a cron expression has 5 (minute hour day-of-month month day-of-week)"));
  }
  const FieldSpec* specs[] = {&kMinute, &kHour, &kDayOfMonth, &kMonth, &kDayOfWeek};
  uint64_t bits[5];
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<uint64_t> parsed = ParseField(*specs[i], fields[i]);
    if (!parsed.ok()) return parsed.status();
    bits[i] = *parsed;
  }
  cron.minutes_ = bits[0];
  cron.hours_ = static_cast<uint32_t>(bits[1]);
  cron.days_of_month_ = static_cast<uint32_t>(bits[2]);
  cron.months_ = static_cast<uint32_t>(bits[3]);
  cron.days_of_week_ = static_cast<uint32_t>((bits[4] | (bits[4] >> 7)) & 0x7F);  // 7 → 0
  cron.hour_star_ = fields[1][0] == '*';
  cron.day_of_month_star_ = fields[2][0] == '*';
  cron.day_of_week_star_ = fields[4][0] == '*';

  cron.time_zone_name_ = std::string(time_zone.empty() ? "UTC" : time_zone);
  absl::StatusOr<absl::TimeZone> zone = LoadIanaTimeZone(cron.time_zone_name_);
  if (!zone.ok()) return zone.status();
  cron.zone_ = *zone;
  // Any matching civil minute at all, over a whole leap cycle of weekdays (28 years)?
  const absl::CivilMinute start(2000, 1, 1, 0, 0);
  if (!cron.NextMatch(
          start, start + (absl::CivilDay(2029, 1, 1) - absl::CivilDay(2000, 1, 1)) * 24 * 60)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", cron.expression_, "\" never fires (no such day)"));
  }
  return cron;
}

bool CronExpression::DayMatches(absl::CivilDay day) const {
  const bool dom = (days_of_month_ >> day.day()) & 1;
  const int weekday = (static_cast<int>(absl::GetWeekday(day)) + 1) % 7;  // absl: Monday = 0
  const bool dow = (days_of_week_ >> weekday) & 1;
  if (day_of_month_star_ || day_of_week_star_) return dom && dow;
  return dom || dow;
}

bool CronExpression::Matches(absl::CivilMinute minute) const {
  return ((months_ >> minute.month()) & 1) && DayMatches(absl::CivilDay(minute)) &&
         ((hours_ >> minute.hour()) & 1) && ((minutes_ >> minute.minute()) & 1);
}

std::optional<absl::CivilMinute> CronExpression::NextMatch(absl::CivilMinute from,
                                                           absl::CivilMinute limit) const {
  absl::CivilMinute at = from;
  while (at <= limit) {
    if (!((months_ >> at.month()) & 1)) {
      at = absl::CivilMinute(absl::CivilMonth(at) + 1);
      continue;
    }
    if (!DayMatches(absl::CivilDay(at))) {
      at = absl::CivilMinute(absl::CivilDay(at) + 1);
      continue;
    }
    if (!((hours_ >> at.hour()) & 1)) {
      at = absl::CivilMinute(absl::CivilHour(at) + 1);
      continue;
    }
    if (!((minutes_ >> at.minute()) & 1)) {
      at += 1;
      continue;
    }
    return at;
  }
  return std::nullopt;
}

std::optional<absl::Time> CronExpression::NextAfter(absl::Time after) const {
  // Civil time is not monotonic in absolute time (it jumps back when the clocks fall back), so
  // scan matching civil minutes from kMaxShiftMinutes before `after`'s, keep the earliest instant
  // after `after`, and stop once the civil minutes are past the best one's by more than any shift.
  const absl::CivilMinute local = absl::ToCivilMinute(after, zone_);
  const absl::CivilMinute limit = local + int64_t{366} * 24 * 60 * kHorizonYears;
  std::optional<absl::Time> best;
  absl::CivilMinute best_local;
  for (std::optional<absl::CivilMinute> at = NextMatch(local - kMaxShiftMinutes, limit); at;
       at = NextMatch(*at + 1, limit)) {
    if (best && *at > best_local + kMaxShiftMinutes) break;
    const absl::TimeZone::TimeInfo info = zone_.At(*at);
    absl::Time candidates[2];
    int count = 0;
    switch (info.kind) {
      case absl::TimeZone::TimeInfo::UNIQUE:
        candidates[count++] = info.pre;
        break;
      case absl::TimeZone::TimeInfo::SKIPPED:
        if (!hour_star_) candidates[count++] = info.trans;
        break;
      case absl::TimeZone::TimeInfo::REPEATED:
        candidates[count++] = std::min(info.pre, info.post);
        if (hour_star_) candidates[count++] = std::max(info.pre, info.post);
        break;
    }
    for (int i = 0; i < count; ++i) {
      if (candidates[i] > after && (!best || candidates[i] < *best)) {
        best = candidates[i];
        best_local = absl::ToCivilMinute(*best, zone_);
      }
    }
  }
  return best;
}

}  // namespace kvbench::controller
