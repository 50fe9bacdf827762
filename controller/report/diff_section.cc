#include "controller/report/diff_section.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/regression/diff_text.h"
#include "controller/report/text_format.h"

namespace kvbench::report {
namespace {

std::string Cell(const std::string& text) {
  return absl::StrCat("<td>", HtmlEscape(text), "</td>");
}

std::string ScenarioTable(const regression::ScenarioDiff& scenario) {
  std::string out = absl::StrCat(
      "<h3>",
      HtmlEscape(regression::ScenarioKeyText(scenario.tier, scenario.concurrency, scenario.agent)),
      "</h3>\n<p class=\"meta\">", HtmlEscape(absl::StrJoin(scenario.before_runs, " + ")), " → ",
      HtmlEscape(absl::StrJoin(scenario.after_runs, " + ")),
      scenario.note.empty() ? "" : absl::StrCat(" (", HtmlEscape(scenario.note), ")"),
      "</p>\n<table class=\"diff\">\n<tr><th>Metric</th><th>Before</th><th>After</th>"
      "<th>Change</th><th>Interval</th><th>Verdict</th></tr>\n");
  for (const regression::MetricDiff& metric : scenario.metrics) {
    const std::string verdict = regression::DiffVerdictName(metric.verdict);
    absl::StrAppend(
        &out, "<tr class=\"diff-", verdict, "\">", Cell(regression::MetricHeading(metric.metric)),
        Cell(regression::FormatMetricValue(metric.metric, metric.before)),
        Cell(regression::FormatMetricValue(metric.metric, metric.after)),
        Cell(regression::FormatChange(metric.metric, metric.change)),
        Cell(regression::FormatInterval(metric)),
        Cell(metric.note.empty() ? verdict : verdict + " (" + metric.note + ")"), "</tr>\n");
  }
  return out + "</table>\n";
}

}  // namespace

std::string DiffSection(const regression::JobDiff& diff, const std::string& baseline_name) {
  int regressions = 0;
  for (const regression::ScenarioDiff& scenario : diff.scenarios) {
    for (const regression::MetricDiff& metric : scenario.metrics) {
      regressions += metric.verdict == regression::DiffVerdict::kRegression ? 1 : 0;
    }
  }
  std::string out = absl::StrCat("<h2>Change against ", HtmlEscape(baseline_name), "</h2>\n");
  if (regressions > 0) {
    absl::StrAppend(&out,
                    "<div class=\"banner banner-invalid\" role=\"alert\">REGRESSION: ", regressions,
                    " metric(s) against ", HtmlEscape(baseline_name), "</div>\n");
  }
  absl::StrAppend(&out, "<p class=\"meta\">", HtmlEscape(regression::DiffMethodLine(diff.options)),
                  "</p>\n");
  if (!diff.caveat.empty()) {
    absl::StrAppend(&out, "<p class=\"time-note\">", HtmlEscape(diff.caveat), "</p>\n");
  }
  for (const regression::ScenarioDiff& scenario : diff.scenarios) out += ScenarioTable(scenario);
  for (const std::string& unmatched : diff.unmatched) {
    absl::StrAppend(&out, "<p class=\"meta\">unmatched ", HtmlEscape(unmatched), "</p>\n");
  }
  return out;
}

}  // namespace kvbench::report
