#pragma once

// What every chart of the report shares: the <svg class="chart" data-points="N"> element, its
// title, the axes with ticks and labelled units, the legend and the "no data" note. LineChart and
// BarChart draw their marks in between, through X() and Y().

#include <string>
#include <vector>

#include "controller/report/chart_axis.h"
#include "controller/report/chart_data.h"

namespace kvbench::report {

struct LegendEntry {
  std::string name;
  std::string color;
  LineStyle style = LineStyle::kSolid;
  bool bar = false;  // a swatch instead of a line with a marker
};

class ChartFrame {
 public:
  ChartFrame(ChartAxis x, ChartAxis y);

  // Pixel position of a data value inside the plot area.
  double X(double value) const;
  double Y(double value) const;
  double plot_bottom() const { return kPlotBottom; }

  // <svg ...> and the title; `points` is the number of marks the chart draws.
  std::string Open(const std::string& title, int points) const;
  // Grid lines, axes, tick labels and the two axis labels (both with their units).
  std::string Axes(const std::string& x_label, const std::string& y_label) const;
  std::string Legend(const std::vector<LegendEntry>& entries) const;
  // The centred text "no data", for a chart without a single measured value.
  std::string NoData() const;
  static std::string Close() { return "</svg>\n"; }

  static constexpr int kWidth = 660;
  static constexpr int kHeight = 340;
  static constexpr int kPlotLeft = 72;
  static constexpr int kPlotRight = 480;
  static constexpr int kPlotTop = 40;
  static constexpr int kPlotBottom = 280;

 private:
  std::string XTicks() const;
  std::string YTicks() const;

  ChartAxis x_;
  ChartAxis y_;
};

// The stroke-dasharray attribute of a style ("" for solid).
std::string DashAttribute(LineStyle style);

}  // namespace kvbench::report
