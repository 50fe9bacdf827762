#include "controller/report/history_report.h"

#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/report/line_chart.h"
#include "controller/report/report_style.h"
#include "controller/report/text_format.h"
#include "controller/report/tier_style.h"

namespace kvbench::report {
namespace {

// The y axis label: the metric with the unit its name ends in.
std::string MetricLabel(const std::string& metric) {
  auto ends = [&metric](const char* suffix) {
    const std::string s(suffix);
    return metric.size() > s.size() && metric.compare(metric.size() - s.size(), s.size(), s) == 0;
  };
  if (ends("_s")) return absl::StrCat(metric, " (s)");
  if (ends("_pct") || ends("_rate")) return absl::StrCat(metric, " (ratio or %)");
  if (ends("per_s")) return absl::StrCat(metric, " (per s)");
  return absl::StrCat(metric, " (value)");
}

std::string RunsTable(const History& history) {
  std::string out =
      "<table class=\"runs\"><thead><tr><th>run</th><th>fire time</th><th>job</th>"
      "<th>state</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < history.runs.size(); ++i) {
    const HistoryRun& run = history.runs[i];
    absl::StrAppend(&out, "<tr><td>", i + 1, "</td><td>", HtmlEscape(run.fire_time), "</td><td>",
                    HtmlEscape(run.job_id), "</td><td>", HtmlEscape(run.state), "</td></tr>\n");
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string RenderHistoryHtml(const History& history) {
  // agent -> concurrency -> series of that chart
  std::map<std::string, std::map<int, std::vector<const HistorySeries*>>> charts;
  for (const HistorySeries& series : history.series) {
    charts[series.agent_id][series.concurrency].push_back(&series);
  }
  std::vector<double> ticks;
  for (size_t i = 0; i < history.runs.size(); ++i) ticks.push_back(static_cast<double>(i + 1));
  std::string body;
  for (const auto& [agent, by_concurrency] : charts) {
    absl::StrAppend(&body, "<h2>", agent.empty() ? "every agent" : "agent " + HtmlEscape(agent),
                    "</h2>\n<div class=\"charts\">\n");
    for (const auto& [concurrency, lines] : by_concurrency) {
      LineChartSpec spec;
      spec.title = absl::StrCat(history.metric, ", concurrency ", concurrency,
                                agent.empty() ? "" : ", " + agent);
      spec.x_label = "run (oldest first) (#)";
      spec.y_label = MetricLabel(history.metric);
      spec.x_ticks = ticks;
      for (const HistorySeries* line : lines) {
        const TierStyle style = StyleOfTier(line->tier);
        ChartSeries& series = spec.series.emplace_back();
        series.name = style.name;
        series.color = style.color;
        for (size_t i = 0; i < line->values.size(); ++i) {
          ChartPoint& point = series.points.emplace_back();
          point.x = static_cast<double>(i + 1);
          point.y = line->values[i];
          point.hover =
              absl::StrCat(style.name, ", run ", i + 1, " (", history.runs[i].fire_time, ", ",
                           history.runs[i].job_id, "): ", FormatOptional(line->values[i]));
        }
      }
      for (const HistoryChangePoint& point : history.change_points) {
        if (point.agent_id != agent || point.concurrency != concurrency) continue;
        const TierStyle style = StyleOfTier(point.tier);
        spec.markers.push_back(
            {static_cast<double>(point.run_index + 1), style.color,
             absl::StrFormat("change point: %s %+.1f%% from run %d (%s), p = %.3g%s", style.name,
                             point.magnitude_pct, point.run_index + 1,
                             history.runs[point.run_index].job_id, point.p_value,
                             point.bad_direction ? ", worse" : "")});
      }
      body += LineChart(std::move(spec)).RenderSvg();
    }
    body += "</div>\n";
  }
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kvbench "
      "history: ",
      HtmlEscape(history.title), " (", HtmlEscape(history.metric), ")</title>\n<style>",
      ReportStyle(), "</style>\n</head>\n<body>\n<h1>kvbench history: ", HtmlEscape(history.title),
      "</h1>\n<p class=\"meta\">", HtmlEscape(history.metric), " over ", history.runs.size(),
      " runs, one line per tier; agents apart</p>\n", body, "<h2>Runs</h2>\n", RunsTable(history),
      "</body>\n</html>\n");
}

}  // namespace kvbench::report
