#include "controller/report/line_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/report/chart_frame.h"
#include "controller/report/text_format.h"

namespace kvbench::report {
namespace {

bool Measured(const ChartPoint& point) {
  return point.y.has_value() && std::isfinite(*point.y) && std::isfinite(point.x);
}

// The x and y ranges of the measured points.
std::pair<ChartAxis, ChartAxis> Axes(const LineChartSpec& spec) {
  double x_high = 0, y_high = 0, y_low = 0;
  double x_low = std::numeric_limits<double>::infinity();
  for (const ChartSeries& series : spec.series) {
    for (const ChartPoint& point : series.points) {
      if (!Measured(point)) continue;
      x_low = std::min(x_low, point.x);
      x_high = std::max(x_high, point.x);
      y_high = std::max(y_high, *point.y);
      y_low = std::min(y_low, *point.y);
    }
  }
  for (const ChartMarker& marker : spec.markers) {
    x_low = std::min(x_low, marker.x);
    x_high = std::max(x_high, marker.x);
  }
  ChartAxis x = spec.x_time            ? ChartAxis::Time(std::isfinite(x_low) ? x_low : 0, x_high)
                : spec.x_ticks.empty() ? ChartAxis::Nice(0, x_high)
                                       : ChartAxis::AtValues(spec.x_ticks);
  ChartAxis y =
      ChartAxis::Nice(y_low, spec.y_max.has_value() ? std::max(*spec.y_max, y_high) : y_high);
  return {std::move(x), std::move(y)};
}

// Polylines of consecutive measured points, then one circle per measured point.
std::string SeriesSvg(const ChartSeries& series, const ChartFrame& frame, int* points) {
  std::string lines, circles, run;
  int run_length = 0;
  auto flush = [&] {
    if (run_length >= 2) {
      absl::StrAppend(&lines, "<polyline fill=\"none\" stroke=\"", series.color,
                      "\" stroke-width=\"2\"", DashAttribute(series.style), " points=\"", run,
                      "\"/>\n");
    }
    run.clear();
    run_length = 0;
  };
  for (const ChartPoint& point : series.points) {
    if (!Measured(point)) {
      flush();
      continue;
    }
    const std::string x = absl::StrFormat("%.1f", frame.X(point.x));
    const std::string y = absl::StrFormat("%.1f", frame.Y(*point.y));
    absl::StrAppend(&run, run.empty() ? "" : " ", x, ",", y);
    ++run_length;
    ++*points;
    absl::StrAppend(&circles, "<circle class=\"point\" cx=\"", x, "\" cy=\"", y,
                    "\" r=\"3.5\" fill=\"", series.color, "\"><title>", HtmlEscape(point.hover),
                    "</title></circle>\n");
  }
  flush();
  return absl::StrCat("<g class=\"series\" data-series=\"", HtmlEscape(series.name), "\">\n", lines,
                      circles, "</g>\n");
}

}  // namespace

LineChart::LineChart(LineChartSpec spec) : spec_(std::move(spec)) {}

std::string LineChart::RenderSvg() const {
  auto [x, y] = Axes(spec_);
  const ChartFrame frame(std::move(x), std::move(y));
  int points = 0;
  std::string marks;
  std::vector<LegendEntry> legend;
  for (const ChartSeries& series : spec_.series) {
    const int before = points;
    std::string svg = SeriesSvg(series, frame, &points);
    if (points == before) continue;  // nothing measured: neither marks nor a legend entry
    marks += svg;
    legend.push_back({series.name, series.color, series.style, /*bar=*/false});
  }
  for (const ChartMarker& marker : spec_.markers) {
    const bool alert = marker.kind == MarkerKind::kAlert;
    absl::StrAppend(
        &marks, absl::StrFormat("<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
                                "y2=\"%d\" stroke=\"%s\" stroke-width=\"%s\"%s><title>%s</title>"
                                "</line>\n",
                                alert ? "alert" : "change-point", frame.X(marker.x),
                                frame.X(marker.x), ChartFrame::kPlotTop, ChartFrame::kPlotBottom,
                                HtmlEscape(marker.color), alert ? "4" : "2",
                                alert ? " stroke-opacity=\"0.6\"" : " stroke-dasharray=\"4 3\"",
                                HtmlEscape(marker.hover)));
  }
  return absl::StrCat(frame.Open(spec_.title, points), frame.Axes(spec_.x_label, spec_.y_label),
                      marks, points == 0 ? frame.NoData() : frame.Legend(legend),
                      ChartFrame::Close());
}

}  // namespace kvbench::report
