#include "controller/report/comparison_section.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/report/text_format.h"
#include "controller/results/delta_text.h"

namespace kvbench::report {
namespace {

std::string ComparisonCell(const std::string& text, const char* css_class = nullptr) {
  return css_class == nullptr
             ? absl::StrCat("<td>", HtmlEscape(text), "</td>")
             : absl::StrCat("<td class=\"", css_class, "\">", HtmlEscape(text), "</td>");
}

// As the report writes numbers everywhere (17337, 86.7, 6.59), never "1.734e+04".
std::string ValueText(const std::optional<double>& value) {
  return value.has_value() ? FormatNumber(*value) : "-";
}

std::string GroupTable(const results::ComparisonGroup& group) {
  std::string out = absl::StrCat("<h3>Concurrency ", group.concurrency, "</h3>\n");
  if (!group.scrape_note.empty()) {
    absl::StrAppend(&out, "<p class=\"meta\">", HtmlEscape(group.scrape_note), "</p>\n");
  }
  if (!group.interval_note.empty()) {
    absl::StrAppend(&out, "<p class=\"meta\">", HtmlEscape(group.interval_note), "</p>\n");
  }
  for (const std::string& caveat : group.caveats) {
    absl::StrAppend(&out, "<p class=\"meta caveat\">caveat: ", HtmlEscape(caveat), "</p>\n");
  }
  absl::StrAppend(&out, "<table class=\"comparison\">\n<tr><th>Metric</th>");
  for (size_t i = 0; i < group.columns.size(); ++i) {
    const std::string tier = v1::Tier_Name(group.columns[i].tier);
    absl::StrAppend(&out, "<th>", tier, "</th>");
    if (group.baseline >= 0 && static_cast<int>(i) != group.baseline) {
      absl::StrAppend(&out, "<th>", tier, " vs GPU</th>");
    }
  }
  out += "</tr>\n";
  for (const results::ComparisonRow& row : group.rows) {
    absl::StrAppend(&out, "<tr>",
                    ComparisonCell(absl::StrCat(
                        row.metric, " (", results::ShownUnit(group, row, "simulated "), ")")));
    for (size_t i = 0; i < group.columns.size(); ++i) {
      out += ComparisonCell(ValueText(row.values[i]));
      if (group.baseline < 0 || static_cast<int>(i) == group.baseline) continue;
      const std::optional<results::DeltaInterval>& interval = row.intervals[i];
      out += ComparisonCell(results::DeltaText(row, i),
                            interval.has_value() && interval->ContainsZero() ? "unclear" : nullptr);
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace

std::string ComparisonSection(const std::vector<results::ComparisonGroup>& groups) {
  std::string out = "<h2>Tier comparison</h2>\n";
  for (const results::ComparisonGroup& group : groups) out += GroupTable(group);
  return out;
}

}  // namespace kvbench::report
