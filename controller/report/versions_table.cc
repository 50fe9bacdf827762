#include "controller/report/versions_table.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/report/text_format.h"
#include "controller/results/versions_summary.h"

namespace kvbench::report {
namespace {

std::string ConnectorText(const v1::KvConnectorLoad& load) {
  const std::string name = load.class_name().empty() ? "not logged" : load.class_name();
  const std::string from = load.module_path().empty() ? "vLLM's own registry (its vendored copy)"
                                                      : absl::StrCat("module ", load.module_path());
  return absl::StrCat(name, " from ", from);
}

}  // namespace

std::string VersionsTable(const ReportRuns& runs) {
  std::vector<const v1::ScenarioResult*> results;
  for (const ReportRun& run : runs.runs()) results.push_back(run.result);
  const std::vector<results::ComponentVersions> components = results::SummarizeVersions(results);
  if (components.empty()) return "<p class=\"no-data\">no versions recorded</p>\n";
  std::string out =
      "<table class=\"versions\">\n<thead><tr><th>component</th><th>version</th><th>tiers</th>"
      "</tr></thead>\n<tbody>\n";
  for (const results::ComponentVersions& component : components) {
    for (const results::ComponentVersions::Seen& seen : component.versions) {
      const bool mixed = component.versions.size() > 1;
      absl::StrAppend(&out, "<tr", mixed && component.must_match ? " class=\"mixed\"" : "", "><td>",
                      HtmlEscape(component.component), "</td><td>", HtmlEscape(seen.version),
                      "</td><td>", mixed ? HtmlEscape(absl::StrJoin(seen.tiers, ", ")) : "all",
                      "</td></tr>\n");
    }
  }
  out += "</tbody></table>\n";
  std::vector<std::string> connectors;
  for (const ReportRun& run : runs.runs()) {
    if (!run.result->has_kv_connector()) continue;
    const std::string text =
        absl::StrCat(v1::Tier_Name(run.tier), ": ", ConnectorText(run.result->kv_connector()));
    if (std::find(connectors.begin(), connectors.end(), text) == connectors.end()) {
      connectors.push_back(text);
    }
  }
  if (!connectors.empty()) {
    absl::StrAppend(&out, "<p class=\"connector\">KV connector: ",
                    HtmlEscape(absl::StrJoin(connectors, "; ")), "</p>\n");
  }
  return out;
}

}  // namespace kvbench::report
