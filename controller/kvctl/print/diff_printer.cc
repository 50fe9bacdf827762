#include "controller/kvctl/print/diff_printer.h"

#include "absl/strings/str_join.h"
#include "controller/kvctl/print/table_printer.h"
#include "controller/regression/diff_text.h"

namespace kvbench::kvctl {

void PrintJobDiff(const regression::JobDiff& diff, const std::string& before_name,
                  const std::string& after_name, std::ostream& out) {
  out << "before " << before_name << ", after " << after_name << "\n"
      << regression::DiffMethodLine(diff.options) << "\n"
      << regression::FamilyWiseLines(diff.families);
  if (!diff.caveat.empty()) out << "note: " << diff.caveat << "\n";
  if (diff.scenarios.empty()) out << "\nno scenario of one matches a scenario of the other\n";
  for (const regression::ScenarioDiff& scenario : diff.scenarios) {
    out << "\n"
        << regression::ScenarioKeyText(scenario.tier, scenario.concurrency, scenario.agent) << ": "
        << absl::StrJoin(scenario.before_runs, " + ") << " -> "
        << absl::StrJoin(scenario.after_runs, " + ");
    if (!scenario.note.empty()) out << " (" << scenario.note << ")";
    out << "\n";
    TablePrinter table({"METRIC", "BEFORE", "AFTER", "CHANGE", "INTERVAL", "VERDICT"});
    for (const regression::MetricDiff& metric : scenario.metrics) {
      std::string verdict = regression::DiffVerdictName(metric.verdict);
      if (!metric.note.empty()) verdict += " (" + metric.note + ")";
      table.AddRow({regression::MetricHeading(metric.metric),
                    regression::FormatMetricValue(metric.metric, metric.before),
                    regression::FormatMetricValue(metric.metric, metric.after),
                    regression::FormatChange(metric.metric, metric.change),
                    regression::FormatInterval(metric), verdict});
    }
    table.Print(out);
  }
  for (const std::string& unmatched : diff.unmatched) out << "\nunmatched " << unmatched;
  if (!diff.unmatched.empty()) out << "\n";
}

int CountRegressions(const regression::JobDiff& diff) {
  int count = 0;
  for (const regression::ScenarioDiff& scenario : diff.scenarios) {
    for (const regression::MetricDiff& metric : scenario.metrics) {
      count += metric.verdict == regression::DiffVerdict::kRegression ? 1 : 0;
    }
  }
  return count;
}

}  // namespace kvbench::kvctl
