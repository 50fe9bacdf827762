#include "controller/regression/diff_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kvbench::regression {
namespace {

constexpr char kNone[] = "—";

std::string Signed(double value, const char* suffix) {
  return absl::StrFormat("%+.1f%s", value, suffix);
}

const char* ChangeSuffix(RegressionMetric metric) {
  return InfoOf(metric).change_kind == ChangeKind::kRelativePct ? "%" : " pp";
}

}  // namespace

std::string FormatMetricValue(RegressionMetric metric, const std::optional<double>& value) {
  if (!value) return kNone;
  const RegressionMetricInfo& info = InfoOf(metric);
  const double shown = *value * info.shown_scale;
  return absl::StrFormat(shown >= 100 ? "%.0f" : "%.3g", shown);
}

std::string FormatChange(RegressionMetric metric, const std::optional<double>& change) {
  if (!change) return kNone;
  return Signed(*change, ChangeSuffix(metric));
}

std::string FormatInterval(const MetricDiff& diff) {
  if (!diff.low || !diff.high) return kNone;
  return absl::StrCat("[", Signed(*diff.low, ChangeSuffix(diff.metric)), ", ",
                      Signed(*diff.high, ChangeSuffix(diff.metric)), "]");
}

std::string MetricHeading(RegressionMetric metric) {
  const RegressionMetricInfo& info = InfoOf(metric);
  return absl::StrCat(info.label, " (", info.unit, ")");
}

std::string DiffMethodLine(const DiffOptions& options) {
  return absl::StrFormat(
      "no_change band ±%g%% (percentage points for shares); %g%% intervals from %d resamples of "
      "virtual users, seed %d",
      options.band, options.confidence * 100, options.resamples, options.seed);
}

std::string FamilyText(const std::vector<RegressionMetric>& metrics, int scenarios) {
  std::string text;
  if (metrics.size() == AllRegressionMetrics().size()) {
    text = "every metric";
  } else {
    for (RegressionMetric metric : metrics) {
      absl::StrAppend(&text, text.empty() ? "" : ", ", InfoOf(metric).label);
    }
  }
  absl::StrAppend(&text, " × ", scenarios, scenarios == 1 ? " scenario" : " scenarios");
  return text;
}

std::string FamilyWiseLines(const std::vector<TestFamily>& families) {
  std::string lines;
  for (const TestFamily& family : families) {
    absl::StrAppend(&lines,
                    absl::StrFormat("verdicts controlled family-wise (Holm, α = %g): %d tests "
                                    "(%s), %d withheld; each interval is its test's own\n",
                                    family.alpha, family.tests,
                                    FamilyText(family.metrics, family.scenarios), family.withheld));
  }
  return lines;
}

}  // namespace kvbench::regression
