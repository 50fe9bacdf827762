#include "controller/report/report_style.h"

namespace kvbench::report {

const char* ReportStyle() {
  return R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px;
       color: #1a1a1a; max-width: 1500px; }
h1 { margin-bottom: 4px; } h2 { margin-top: 32px; border-bottom: 1px solid #ccc; }
.meta { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 8px 0; font-size: 14px; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
thead th { background: #f2f2f2; }
table.params th { background: #f7f7f7; font-weight: 600; }
.wide { overflow-x: auto; }
table.offload td, table.sessions td { white-space: nowrap; }
.tier-swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
.banner { padding: 14px 18px; margin: 16px 0; font-size: 20px; font-weight: 700;
          border: 4px solid; }
.banner-invalid { background: #fde2e1; border-color: #b00020; color: #b00020; }
.banner-not-exercised { background: #fff4d6; border-color: #8a5a00; color: #8a5a00; }
.banner-valid { background: #e6f4ea; border-color: #1b7f3b; color: #1b7f3b; }
table.summary td { font-size: 16px; white-space: nowrap; }
table.summary td.verdict-cell, table.summary td.winner { font-weight: 700; }
p.caveat { color: #8a5a00; }
table.comparison td { white-space: nowrap; }
.headline { font-size: 22px; font-weight: 700; margin: 12px 0; }
table.capacity td { white-space: nowrap; }
table.comparison td.unclear { color: #666; font-style: italic; }
table.versions tr.mixed td { color: #b00020; font-weight: 700; }
.diff-regression td { background: #fde2e1; color: #b00020; font-weight: 600; }
.diff-improvement td { background: #e6f4ea; }
.verdict { border-left: 10px solid; padding: 6px 14px; margin: 10px 0; }
.verdict h3 { margin: 6px 0; }
.verdict-label { font-size: 22px; margin-right: 8px; }
.verdict-valid { border-color: #1b7f3b; background: #e6f4ea; }
.verdict-valid .verdict-label { color: #1b7f3b; }
.verdict-invalid { border-color: #b00020; background: #fde2e1; }
.verdict-invalid .verdict-label { color: #b00020; }
.verdict-not-exercised { border-color: #8a5a00; background: #fff4d6; }
.verdict-not-exercised .verdict-label { color: #8a5a00; }
.verdict-unspecified { border-color: #666; background: #f2f2f2; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
svg.chart { border: 1px solid #ddd; background: #fff; font-size: 12px; }
svg.chart .chart-title { font-size: 15px; font-weight: 600; }
svg.chart .axis { stroke: #333; stroke-width: 1; }
svg.chart .tick line { stroke: #333; }
svg.chart .grid { stroke: #e5e5e5; }
svg.chart .axis-label { font-size: 13px; }
svg.chart .no-data { font-size: 18px; fill: #777; }
p.no-data { color: #777; }
p.table-note { color: #555; font-size: 13px; max-width: 60em; }
p.time-note { font-weight: 600; color: #333; }
)css";
}

}  // namespace kvbench::report
