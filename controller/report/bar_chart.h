#pragma once

#include <string>

#include "controller/report/chart_data.h"

namespace kvbench::report {

// Grouped bars as inline SVG: one group per category, one <rect> per measured value with a hover
// <title>, axes with ticks and unit labels, a legend. Null values get no bar (never a 0).
// data-points is the number of bars; with none, the chart says "no data". Pure.
class BarChart {
 public:
  explicit BarChart(BarChartSpec spec);
  std::string RenderSvg() const;

 private:
  BarChartSpec spec_;
};

}  // namespace kvbench::report
