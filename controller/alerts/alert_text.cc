#include "controller/alerts/alert_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/regression/diff_text.h"
#include "controller/regression/job_diff.h"

namespace kvbench::controller {

const char* DeliveryStateName(v1::DeliveryState state) {
  switch (state) {
    case v1::DELIVERY_DELIVERED:
      return "delivered";
    case v1::DELIVERY_FAILED:
      return "failed";
    default:
      return "pending";
  }
}

std::string AlertSummary(const v1::RegressionAlert& alert) {
  const std::optional<regression::RegressionMetric> metric =
      regression::RegressionMetricFromKey(alert.metric());
  const std::string where =
      regression::ScenarioKeyText(alert.tier(), alert.concurrency(), alert.agent());
  if (!metric) return absl::StrCat(alert.schedule(), ": ", alert.metric(), " of ", where);
  const regression::RegressionMetricInfo& info = regression::InfoOf(*metric);
  std::string text = absl::StrCat(alert.schedule(), ": ", info.label, " of ", where, " ",
                                  regression::FormatChange(*metric, alert.change()));
  if (alert.has_low() && alert.has_high()) {
    regression::MetricDiff interval;
    interval.metric = *metric;
    interval.low = alert.low();
    interval.high = alert.high();
    absl::StrAppend(&text, " ", regression::FormatInterval(interval));
  }
  absl::StrAppend(&text, " (", regression::FormatMetricValue(*metric, alert.before()), " -> ",
                  regression::FormatMetricValue(*metric, alert.after()), " ", info.unit, ")");
  absl::StrAppend(&text, alert.kind() == v1::ALERT_CHANGE_POINT ? ", " : " against ",
                  alert.baseline(), ", job ", alert.job_id());
  if (!alert.likely_cause().empty()) {
    absl::StrAppend(&text, "; releases changed: ", alert.likely_cause(), " (a likely cause)");
  }
  return text;
}

}  // namespace kvbench::controller
