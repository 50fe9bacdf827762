#include "controller/report/capacity_section.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/report/text_format.h"

namespace kvbench::report {
namespace {

std::string CapacityCell(const std::string& text) {
  return absl::StrCat("<td>", HtmlEscape(text), "</td>");
}

std::string CapacityMs(double seconds) { return absl::StrFormat("%.0f", seconds * 1e3); }

std::string CapacityMeasureText(const v1::SloMeasure& measure) {
  std::string text =
      measure.has_value_s() ? absl::StrCat(CapacityMs(measure.value_s()), " ms") : "-";
  if (measure.has_low_s() && measure.has_high_s()) {
    absl::StrAppend(&text, " [", CapacityMs(measure.low_s()), ", ", CapacityMs(measure.high_s()),
                    "]");
  } else if (!measure.note().empty()) {
    absl::StrAppend(&text, " (", measure.note(), ")");
  }
  return absl::StrCat(text, " vs ", CapacityMs(measure.target_s()));
}

}  // namespace

std::string CapacitySection(const v1::CapacityReport& report) {
  if (report.tiers_size() == 0) return "";
  std::string out = absl::StrCat("<h2>Capacity at the SLO</h2>\n<p class=\"headline\">",
                                 HtmlEscape(report.headline()), "</p>\n");
  if (!report.offload_note().empty()) {
    absl::StrAppend(&out, "<p class=\"banner banner-not-exercised\">",
                    HtmlEscape(report.offload_note()), "</p>\n");
  }
  out +=
      "<p class=\"meta\">Capacity: the most concurrent users whose SLO metrics' 95% intervals "
      "(a bootstrap over the repeats, then the virtual users) lie under the target; [low, high]: "
      "where the true one lies.</p>\n<table class=\"capacity\">\n<tr><th>Tier</th><th>Users</th>"
      "<th>Repeats</th><th>Outcome</th><th>SLO metrics, ms [95% interval] vs target</th></tr>\n";
  for (const v1::TierCapacity& tier : report.tiers()) {
    for (const v1::CapacityProbe& probe : tier.probes()) {
      std::string measures;
      for (const v1::SloMeasure& measure : probe.measures()) {
        if (!measures.empty()) measures += "; ";
        absl::StrAppend(&measures, measure.metric(), " ", CapacityMeasureText(measure));
      }
      absl::StrAppend(&out, "<tr>", CapacityCell(v1::Tier_Name(tier.tier())),
                      CapacityCell(absl::StrCat(probe.concurrency())),
                      CapacityCell(absl::StrCat(probe.repeats())), CapacityCell(probe.outcome()),
                      CapacityCell(measures), "</tr>\n");
    }
  }
  out += "</table>\n<ul>\n";
  for (const v1::TierCapacity& tier : report.tiers()) {
    absl::StrAppend(&out, "<li>", HtmlEscape(v1::Tier_Name(tier.tier())), ": ",
                    HtmlEscape(tier.reason()), "</li>\n");
  }
  return out + "</ul>\n";
}

}  // namespace kvbench::report
