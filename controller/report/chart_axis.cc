#include "controller/report/chart_axis.h"

#include <algorithm>
#include <cmath>

#include "absl/time/time.h"
#include "controller/report/text_format.h"

namespace kvbench::report {
namespace {

// 1, 2 or 5 x 10^k, the smallest of those >= raw.
double NiceStep(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (factor * power >= raw * (1 - 1e-9)) return factor * power;
  }
  return 10 * power;
}

}  // namespace

ChartAxis ChartAxis::Nice(double low, double high) {
  low = std::min(0.0, low);
  if (!(high > low)) high = low + 1;
  const double step = NiceStep((high - low) / kTargetTicks);
  ChartAxis axis;
  axis.min = std::floor(low / step) * step;
  axis.max = std::ceil(high / step - 1e-9) * step;
  const int count = static_cast<int>(std::lround((axis.max - axis.min) / step));
  for (int i = 0; i <= count; ++i) {
    const double value = axis.min + i * step;
    axis.ticks.push_back({value, FormatTick(value, step)});
  }
  return axis;
}

ChartAxis ChartAxis::AtValues(const std::vector<double>& values) {
  ChartAxis axis;
  if (values.empty()) return Nice(0, 1);
  const double low = values.front();
  const double high = values.back();
  const double pad = high > low ? (high - low) * 0.05 : 0.5;
  axis.min = low - pad;
  axis.max = high + pad;
  for (double value : values) axis.ticks.push_back({value, FormatNumber(value)});
  return axis;
}

ChartAxis ChartAxis::Time(double low_unix_s, double high_unix_s) {
  constexpr double kMinute = 60, kHour = 3600, kDay = 86400;
  const double pad = high_unix_s > low_unix_s ? (high_unix_s - low_unix_s) * 0.05 : kHour;
  ChartAxis axis;
  axis.min = low_unix_s - pad;
  axis.max = high_unix_s + pad;
  // Runs minutes apart: at least five minutes, so whole minutes fall inside.
  if (const double short_by = 5 * kMinute - (axis.max - axis.min); short_by > 0) {
    axis.min -= short_by / 2;
    axis.max += short_by / 2;
  }
  double step = 30 * kDay;
  for (double candidate : {kMinute, 5 * kMinute, 15 * kMinute, kHour, 3 * kHour, 6 * kHour,
                           12 * kHour, kDay, 2 * kDay, 7 * kDay, 14 * kDay, 30 * kDay}) {
    if ((axis.max - axis.min) / candidate <= kTargetTicks + 1) {
      step = candidate;
      break;
    }
  }
  const char* format = step >= kDay ? "%Y-%m-%d" : "%m-%d %H:%M";
  for (double t = std::ceil(axis.min / step) * step; t <= axis.max; t += step) {
    axis.ticks.push_back(
        {t, absl::FormatTime(format, absl::FromUnixSeconds(static_cast<int64_t>(t)),
                             absl::UTCTimeZone())});
  }
  return axis;
}

ChartAxis ChartAxis::Categories(const std::vector<std::string>& labels) {
  ChartAxis axis;
  axis.min = 0;
  axis.max = std::max<double>(1, labels.size());
  for (size_t i = 0; i < labels.size(); ++i) axis.ticks.push_back({i + 0.5, labels[i]});
  return axis;
}

}  // namespace kvbench::report
