#include "controller/report/chart_frame.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/report/text_format.h"

namespace kvbench::report {
namespace {

constexpr int kLegendLeft = ChartFrame::kPlotRight + 24;
constexpr int kLegendRowHeight = 20;

std::string Px(double value) { return absl::StrFormat("%.1f", value); }

}  // namespace

std::string DashAttribute(LineStyle style) {
  return style == LineStyle::kDashed ? " stroke-dasharray=\"6 4\"" : "";
}

ChartFrame::ChartFrame(ChartAxis x, ChartAxis y) : x_(std::move(x)), y_(std::move(y)) {}

double ChartFrame::X(double value) const {
  return kPlotLeft + (value - x_.min) / (x_.max - x_.min) * (kPlotRight - kPlotLeft);
}

double ChartFrame::Y(double value) const {
  return kPlotBottom - (value - y_.min) / (y_.max - y_.min) * (kPlotBottom - kPlotTop);
}

std::string ChartFrame::Open(const std::string& title, int points) const {
  return absl::StrCat("<svg class=\"chart\" data-points=\"", points, "\" width=\"", kWidth,
                      "\" height=\"", kHeight, "\" viewBox=\"0 0 ", kWidth, " ", kHeight,
                      "\" role=\"img\" aria-label=\"", HtmlEscape(title), "\">\n",
                      "<text class=\"chart-title\" x=\"", kPlotLeft, "\" y=\"22\">",
                      HtmlEscape(title), "</text>\n");
}

std::string ChartFrame::XTicks() const {
  std::string out;
  for (const AxisTick& tick : x_.ticks) {
    const std::string x = Px(X(tick.value));
    absl::StrAppend(&out, "<g class=\"tick x-tick\"><line x1=\"", x, "\" y1=\"", kPlotBottom,
                    "\" x2=\"", x, "\" y2=\"", kPlotBottom + 5, "\"/><text x=\"", x, "\" y=\"",
                    kPlotBottom + 18, "\" text-anchor=\"middle\">", HtmlEscape(tick.label),
                    "</text></g>\n");
  }
  return out;
}

std::string ChartFrame::YTicks() const {
  std::string out;
  for (const AxisTick& tick : y_.ticks) {
    const std::string y = Px(Y(tick.value));
    absl::StrAppend(&out, "<g class=\"tick y-tick\"><line class=\"grid\" x1=\"", kPlotLeft,
                    "\" y1=\"", y, "\" x2=\"", kPlotRight, "\" y2=\"", y, "\"/><text x=\"",
                    kPlotLeft - 8, "\" y=\"", y, "\" dy=\"4\" text-anchor=\"end\">",
                    HtmlEscape(tick.label), "</text></g>\n");
  }
  return out;
}

std::string ChartFrame::Axes(const std::string& x_label, const std::string& y_label) const {
  const int y_label_x = 18;
  const int y_label_y = (kPlotTop + kPlotBottom) / 2;
  return absl::StrCat(
      YTicks(), XTicks(), "<line class=\"axis\" x1=\"", kPlotLeft, "\" y1=\"", kPlotBottom,
      "\" x2=\"", kPlotRight, "\" y2=\"", kPlotBottom, "\"/>\n", "<line class=\"axis\" x1=\"",
      kPlotLeft, "\" y1=\"", kPlotTop, "\" x2=\"", kPlotLeft, "\" y2=\"", kPlotBottom, "\"/>\n",
      "<text class=\"axis-label x-label\" x=\"", (kPlotLeft + kPlotRight) / 2, "\" y=\"",
      kPlotBottom + 44, "\" text-anchor=\"middle\">", HtmlEscape(x_label), "</text>\n",
      "<text class=\"axis-label y-label\" x=\"", y_label_x, "\" y=\"", y_label_y,
      "\" text-anchor=\"middle\" transform=\"rotate(-90 ", y_label_x, " ", y_label_y, ")\">",
      HtmlEscape(y_label), "</text>\n");
}

std::string ChartFrame::Legend(const std::vector<LegendEntry>& entries) const {
  std::string out = "<g class=\"legend\">\n";
  int y = kPlotTop + 8;
  for (const LegendEntry& entry : entries) {
    absl::StrAppend(&out, "<g class=\"legend-entry\" data-series=\"", HtmlEscape(entry.name),
                    "\" data-color=\"", entry.color, "\">");
    if (entry.bar) {
      absl::StrAppend(&out, "<rect x=\"", kLegendLeft, "\" y=\"", y - 6,
                      "\" width=\"22\" "
                      "height=\"12\" fill=\"",
                      entry.color, "\"/>");
    } else {
      absl::StrAppend(&out, "<line x1=\"", kLegendLeft, "\" y1=\"", y, "\" x2=\"", kLegendLeft + 22,
                      "\" y2=\"", y, "\" stroke=\"", entry.color, "\" stroke-width=\"2\"",
                      DashAttribute(entry.style), "/><circle cx=\"", kLegendLeft + 11, "\" cy=\"",
                      y, "\" r=\"3.5\" fill=\"", entry.color, "\"/>");
    }
    absl::StrAppend(&out, "<text x=\"", kLegendLeft + 30, "\" y=\"", y, "\" dy=\"4\">",
                    HtmlEscape(entry.name), "</text></g>\n");
    y += kLegendRowHeight;
  }
  return out + "</g>\n";
}

std::string ChartFrame::NoData() const {
  return absl::StrCat("<text class=\"no-data\" x=\"", (kPlotLeft + kPlotRight) / 2, "\" y=\"",
                      (kPlotTop + kPlotBottom) / 2, "\" text-anchor=\"middle\">no data</text>\n");
}

}  // namespace kvbench::report
