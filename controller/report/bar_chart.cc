#include "controller/report/bar_chart.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/report/chart_frame.h"
#include "controller/report/text_format.h"

namespace kvbench::report {
namespace {

// Share of a category's width the bars of one group take together.
constexpr double kGroupFill = 0.8;

bool Measured(const std::optional<double>& value) {
  return value.has_value() && std::isfinite(*value);
}

}  // namespace

BarChart::BarChart(BarChartSpec spec) : spec_(std::move(spec)) {}

std::string BarChart::RenderSvg() const {
  double high = 0;
  for (const BarSeries& series : spec_.series) {
    for (const std::optional<double>& value : series.values) {
      if (Measured(value)) high = std::max(high, *value);
    }
  }
  const ChartFrame frame(ChartAxis::Categories(spec_.categories), ChartAxis::Nice(0, high));
  const size_t count = std::max<size_t>(1, spec_.series.size());
  const double bar_width = kGroupFill / count;
  int points = 0;
  std::string marks;
  std::vector<LegendEntry> legend;
  for (size_t s = 0; s < spec_.series.size(); ++s) {
    const BarSeries& series = spec_.series[s];
    const int before = points;
    for (size_t c = 0; c < series.values.size() && c < spec_.categories.size(); ++c) {
      if (!Measured(series.values[c])) continue;
      const double value = *series.values[c];
      const double left = c + (1 - kGroupFill) / 2 + s * bar_width;
      const double top = frame.Y(std::max(0.0, value));
      absl::StrAppend(&marks, "<rect class=\"bar\" x=\"", absl::StrFormat("%.1f", frame.X(left)),
                      "\" y=\"", absl::StrFormat("%.1f", top), "\" width=\"",
                      absl::StrFormat("%.1f", frame.X(left + bar_width) - frame.X(left) - 1),
                      "\" height=\"",
                      absl::StrFormat("%.1f", std::max(0.0, frame.plot_bottom() - top)),
                      "\" fill=\"", series.color, "\"><title>", HtmlEscape(series.name), ", ",
                      HtmlEscape(spec_.categories[c]), ": ", FormatNumber(value), " ",
                      HtmlEscape(spec_.unit), "</title></rect>\n");
      ++points;
    }
    if (points > before) legend.push_back({series.name, series.color, LineStyle::kSolid, true});
  }
  return absl::StrCat(frame.Open(spec_.title, points), frame.Axes(spec_.x_label, spec_.y_label),
                      marks, points == 0 ? frame.NoData() : frame.Legend(legend),
                      ChartFrame::Close());
}

}  // namespace kvbench::report
