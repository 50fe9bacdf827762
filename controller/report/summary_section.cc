#include "controller/report/summary_section.h"

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "controller/report/text_format.h"
#include "controller/report/tier_style.h"
#include "controller/results/delta_text.h"
#include "controller/results/metric_catalog.h"

namespace kvbench::report {
namespace {

const results::ComparisonRow* TtftP95Row(const results::ComparisonGroup& group) {
  const std::string label = results::ComparisonLabel(results::MetricNamed("ttft_p95_s"));
  for (const results::ComparisonRow& row : group.rows) {
    if (row.metric == label) return &row;
  }
  return nullptr;
}

// "VALID", "NOT EXERCISED", ...; "no verdict" before there is one.
std::string VerdictWords(const results::ComparisonGroup& group) {
  if (!group.validity.has_value()) return "no verdict";
  return absl::StrReplaceAll(
      absl::StripPrefix(v1::Verdict_Name(group.validity->verdict()), "VERDICT_"), {{"_", " "}});
}

std::string VerdictCss(const results::ComparisonGroup& group) {
  if (!group.validity.has_value()) return "none";
  return absl::StrReplaceAll(absl::AsciiStrToLower(absl::StripPrefix(
                                 v1::Verdict_Name(group.validity->verdict()), "VERDICT_")),
                             {{"_", "-"}});
}

}  // namespace

std::string TtftP95Winner(const results::ComparisonGroup& group) {
  if (!group.validity.has_value() || group.validity->verdict() != v1::VERDICT_VALID) {
    std::string why = group.validity.has_value() && group.validity->reasons_size() > 0
                          ? group.validity->reasons(0).code()
                          : VerdictWords(group);
    return absl::StrCat("no answer (", absl::AsciiStrToLower(VerdictWords(group)),
                        why == VerdictWords(group) ? "" : ": " + why, ")");
  }
  const results::ComparisonRow* row = TtftP95Row(group);
  if (row == nullptr || group.baseline < 0) return "no answer (no GPU baseline)";
  std::optional<size_t> fastest;
  int offload = 0, slower = 0;
  for (size_t i = 0; i < group.columns.size(); ++i) {
    if (static_cast<int>(i) == group.baseline) continue;
    ++offload;
    const std::optional<results::DeltaInterval>& interval = row->intervals[i];
    if (!interval.has_value() || !row->deltas[i].has_value()) continue;
    if (interval->high < 0 && (!fastest || *row->deltas[i] < *row->deltas[*fastest])) fastest = i;
    if (interval->low > 0) ++slower;
  }
  if (fastest) return StyleOfTier(group.columns[*fastest].tier).name;
  if (offload > 0 && slower == offload) return "GPU";
  return "no clear difference";
}

std::string SummarySection(const std::vector<results::ComparisonGroup>& groups) {
  std::string rows;
  for (const results::ComparisonGroup& group : groups) {
    const results::ComparisonRow* row = TtftP95Row(group);
    if (row == nullptr || group.baseline < 0) continue;
    std::string deltas;
    for (size_t i = 0; i < group.columns.size(); ++i) {
      if (static_cast<int>(i) == group.baseline) continue;
      absl::StrAppend(&deltas, deltas.empty() ? "" : "<br>",
                      StyleOfTier(group.columns[i].tier).name, ": ",
                      HtmlEscape(results::DeltaText(*row, i)));
    }
    absl::StrAppend(&rows, "<tr><td>", group.concurrency, "</td><td class=\"verdict-cell verdict-",
                    VerdictCss(group), "\">", VerdictWords(group), "</td><td>",
                    FormatOptional(row->values[group.baseline]), "</td><td>",
                    deltas.empty() ? "&#8212;" : deltas, "</td><td class=\"winner\">",
                    HtmlEscape(TtftP95Winner(group)), "</td></tr>\n");
  }
  if (rows.empty()) return "";
  const std::string unit = groups.front().time_note.empty() ? "ms" : "simulated ms";
  return absl::StrCat(
      "<h2>At a glance</h2>\n<table class=\"summary\">\n<thead><tr><th>concurrency</th>"
      "<th>comparison</th><th>GPU TTFT p95 (",
      unit, ")</th><th>TTFT p95 vs GPU [95% interval]</th><th>faster tier</th></tr></thead>\n",
      rows,
      "</table>\n<p class=\"table-note\">Faster tier: an offload tier whose TTFT p95 interval "
      "against GPU lies wholly below 0; GPU when every offload tier's lies wholly above; only for "
      "a valid comparison.</p>\n");
}

}  // namespace kvbench::report
