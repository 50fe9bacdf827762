#pragma once

// The value range of one chart axis and its ticks.

#include <string>
#include <vector>

namespace kvbench::report {

struct AxisTick {
  double value = 0;
  std::string label;
};

struct ChartAxis {
  double min = 0;
  double max = 1;
  std::vector<AxisTick> ticks;

  // From 0 (or `low` when it is negative) to a round value >= `high`, ticks at steps of 1, 2 or
  // 5 x 10^k, about `kTargetTicks` of them. An empty range (high <= low) becomes [low, low + 1].
  static ChartAxis Nice(double low, double high);
  // Ticks at exactly `values` (sorted, distinct), the range padded by half a step each side.
  static ChartAxis AtValues(const std::vector<double>& values);
  // A time axis over Unix seconds [low, high], padded by 5% (an hour each side for one instant,
  // to five minutes in all for runs closer than that):
  // ticks at whole minutes, hours or days (UTC), about `kTargetTicks` of them, labelled
  // "12-05 14:00" (or "2026-12-05" at day steps).
  static ChartAxis Time(double low_unix_s, double high_unix_s);
  // Categories at 0.5, 1.5, ... over [0, labels.size()]: the bar chart's x axis.
  static ChartAxis Categories(const std::vector<std::string>& labels);

  static constexpr int kTargetTicks = 5;
};

}  // namespace kvbench::report
