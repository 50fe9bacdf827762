#pragma once

// What a chart draws, independent of SVG: the chart builders (report_charts.h) fill these from the
// job, the renderers (line_chart.h, bar_chart.h) draw them.

#include <optional>
#include <string>
#include <vector>

namespace kvbench::report {

// A null `y` is "not measured": nothing is drawn and the line breaks there (never a 0).
struct ChartPoint {
  double x = 0;
  std::optional<double> y;
  std::string hover;  // the point's <title>, e.g. "GPU p50, concurrency 8: 123 ms"
};

enum class LineStyle { kSolid, kDashed };

struct ChartSeries {
  std::string name;   // legend entry, e.g. "GPU p95"
  std::string color;  // the tier's colour (tier_style.h)
  LineStyle style = LineStyle::kSolid;
  std::vector<ChartPoint> points;  // in x order
};

// A vertical mark at `x` across the plot, with a hover title: a change point of a history
// (dashed) or an alert raised on a run (solid and wider).
enum class MarkerKind { kChangePoint, kAlert };

struct ChartMarker {
  double x = 0;
  std::string color;
  std::string hover;
  MarkerKind kind = MarkerKind::kChangePoint;
};

struct LineChartSpec {
  std::string title;
  std::string x_label;  // with its unit, e.g. "time since replay start (s)"
  std::string y_label;  // with its unit, e.g. "TTFT (ms)"
  // Ticks at exactly these x values (concurrencies, rounds); empty: round ticks over the data.
  std::vector<double> x_ticks;
  // x values are Unix seconds: a time axis (ChartAxis::Time) over the data, x_ticks unused.
  bool x_time = false;
  // A fixed top of the y axis (100 for percentages); nullopt: a round value above the data.
  std::optional<double> y_max;
  std::vector<ChartSeries> series;
  std::vector<ChartMarker> markers;
};

// Grouped bars: one group per category, one bar per series in each group.
struct BarSeries {
  std::string name;
  std::string color;
  std::vector<std::optional<double>> values;  // one per category; null: no bar
};

struct BarChartSpec {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::string unit;                     // in hover titles, e.g. "req/s"
  std::vector<std::string> categories;  // e.g. "concurrency 8"
  std::vector<BarSeries> series;
};

}  // namespace kvbench::report
