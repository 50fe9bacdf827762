#include "controller/report/history_report.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "controller/report/line_chart.h"
#include "controller/report/metric_label.h"
#include "controller/report/report_style.h"
#include "controller/report/text_format.h"
#include "controller/report/tier_style.h"

namespace kvbench::report {
namespace {

constexpr char kAlertColor[] = "#D55E00";  // Okabe-Ito vermillion: no tier's colour

std::string RunsTable(const History& history) {
  std::string out =
      "<table class=\"runs\"><thead><tr><th>run</th><th>fire time</th><th>job</th>"
      "<th>state</th><th>verdicts</th><th>alerts</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < history.runs.size(); ++i) {
    const HistoryRun& run = history.runs[i];
    absl::StrAppend(
        &out, "<tr><td>", i + 1, "</td><td>", HtmlEscape(run.fire_time), "</td><td>",
        HtmlEscape(run.job_id), "</td><td>", HtmlEscape(run.state), "</td><td>",
        run.verdicts.empty() ? "&#8212;" : HtmlEscape(absl::StrJoin(run.verdicts, ", ")),
        "</td><td>", run.alerts, "</td></tr>\n");
  }
  return out + "</tbody></table>\n";
}

std::string Hover(const History& history, size_t run, const std::string& what) {
  return absl::StrCat(what, ", run ", run + 1, " (", history.runs[run].fire_time, ", ",
                      history.runs[run].job_id, ")");
}

LineChartSpec Chart(const History& history, const MetricLabel& label, const std::string& agent,
                    int concurrency, const std::vector<const HistorySeries*>& lines) {
  LineChartSpec spec;
  spec.title = absl::StrCat(label.name, ", concurrency ", concurrency,
                            agent.empty() ? "" : ", agent " + agent);
  spec.x_label = "fire time (UTC)";
  spec.y_label = label.AxisLabel();
  spec.x_time = true;
  for (const HistorySeries* line : lines) {
    const TierStyle style = StyleOfTier(line->tier);
    ChartSeries& series = spec.series.emplace_back();
    series.name = style.name;
    series.color = style.color;
    for (size_t i = 0; i < line->values.size(); ++i) {
      ChartPoint& point = series.points.emplace_back();
      point.x = history.runs[i].time_unix_s;
      if (line->values[i]) point.y = *line->values[i] * label.scale;
      point.hover = Hover(history, i,
                          absl::StrCat(style.name, ": ", FormatOptional(point.y), " ", label.unit));
    }
  }
  for (const HistoryChangePoint& point : history.change_points) {
    if (point.agent_id != agent || point.concurrency != concurrency) continue;
    const TierStyle style = StyleOfTier(point.tier);
    spec.markers.push_back({history.runs[point.run_index].time_unix_s, style.color,
                            Hover(history, point.run_index,
                                  absl::StrFormat("change point: %s %+.1f%% from here, p = %.3g%s",
                                                  style.name, point.magnitude_pct, point.p_value,
                                                  point.bad_direction ? ", worse" : "")),
                            MarkerKind::kChangePoint});
  }
  for (const HistoryAlert& alert : history.alerts) {
    if (alert.agent_id != agent || alert.concurrency != concurrency) continue;
    spec.markers.push_back(
        {history.runs[alert.run_index].time_unix_s, kAlertColor,
         Hover(history, alert.run_index,
               absl::StrCat("alert: ", StyleOfTier(alert.tier).name, " ", alert.text)),
         MarkerKind::kAlert});
  }
  return spec;
}

}  // namespace

std::string RenderHistoryHtml(const History& history) {
  const MetricLabel label = LabelOfMetric(history.metric, history.simulated);
  // agent -> concurrency -> series of that chart
  std::map<std::string, std::map<int, std::vector<const HistorySeries*>>> charts;
  for (const HistorySeries& series : history.series) {
    charts[series.agent_id][series.concurrency].push_back(&series);
  }
  std::string body;
  for (const auto& [agent, by_concurrency] : charts) {
    absl::StrAppend(&body, "<h2>", agent.empty() ? "every agent" : "agent " + HtmlEscape(agent),
                    "</h2>\n<div class=\"charts\">\n");
    for (const auto& [concurrency, lines] : by_concurrency) {
      body += LineChart(Chart(history, label, agent, concurrency, lines)).RenderSvg();
    }
    body += "</div>\n";
  }
  int alerts = 0;
  for (const HistoryRun& run : history.runs) alerts += run.alerts;
  std::string meta = absl::StrCat(
      "<code>", HtmlEscape(history.metric), "</code> over ", history.runs.size(),
      " runs, one line per tier; agents apart. Dashed lines: change points; wide lines: alerts (",
      history.alerts.size(), " on this metric, ", alerts, " in all).");
  if (history.simulated) {
    absl::StrAppend(&meta,
                    " Simulated engine: times and rates are simulated (what the calibrated "
                    "hardware would take), as in every report of these runs.");
  }
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kvbench "
      "history: ",
      HtmlEscape(history.title), " (", HtmlEscape(label.name), ")</title>\n<style>", ReportStyle(),
      "</style>\n</head>\n<body>\n<h1>kvbench history: ", HtmlEscape(history.title), ": ",
      HtmlEscape(label.name), "</h1>\n<p class=\"meta\">", meta, "</p>\n", body, "<h2>Runs</h2>\n",
      RunsTable(history), "</body>\n</html>\n");
}

}  // namespace kvbench::report
