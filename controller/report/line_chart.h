#pragma once

#include <string>

#include "controller/report/chart_data.h"

namespace kvbench::report {

// A line chart as inline SVG: one polyline per series (broken at null points), a <circle> with a
// hover <title> per measured point, axes with ticks and unit labels, a legend. data-points is
// the number of circles; with none, the chart says "no data". Pure.
class LineChart {
 public:
  explicit LineChart(LineChartSpec spec);
  std::string RenderSvg() const;

 private:
  LineChartSpec spec_;
};

}  // namespace kvbench::report
