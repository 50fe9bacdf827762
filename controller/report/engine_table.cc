#include "controller/report/engine_table.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/report/text_format.h"
#include "controller/report/tier_style.h"
#include "controller/results/few_scrapes.h"
#include "controller/results/offload_served.h"

namespace kvbench::report {
namespace {

template <typename Value>
std::string Cell(bool has, Value value) {
  return FormatOptional(has ? std::optional<double>(static_cast<double>(value)) : std::nullopt);
}

std::string Row(const ReportRuns& runs, const ReportRun& run) {
  const v1::EngineMetrics& e = run.result->engine();
  const TierStyle style = StyleOfTier(run.tier);
  std::vector<std::string> cells = {
      absl::StrCat("<span class=\"tier-swatch\" style=\"background:", style.color, "\"></span>",
                   style.name),
      absl::StrCat(run.concurrency),
      Cell(e.has_kv_cache_usage_mean(), e.kv_cache_usage_mean() * 100) + results::FewScrapesText(e),
      Cell(e.has_kv_cache_usage_max(), e.kv_cache_usage_max() * 100),
      Cell(e.has_num_preemptions(), e.num_preemptions()),
      Cell(e.has_prefix_cache_query_tokens(), e.prefix_cache_query_tokens()),
      Cell(e.has_prefix_cache_hit_tokens(), e.prefix_cache_hit_tokens()),
      Cell(e.has_external_query_tokens(), e.external_query_tokens()) +
          (e.external_query_counting().empty()
               ? ""
               : absl::StrCat(" <span class=\"method\">(", e.external_query_counting(),
                              ")</span>")),
      FormatOptional(results::OffloadServedTokens(*run.result)),
      FormatOptional(results::OffloadServedPctOfPrompt(*run.result)),
      Cell(run.result->has_lmcache() && run.result->lmcache().has_hit_rate(),
           run.result->lmcache().hit_rate() * 100)};
  if (runs.several_agents()) cells.insert(cells.begin(), HtmlEscape(run.agent));
  return absl::StrCat("<tr><td>", absl::StrJoin(cells, "</td><td>"), "</td></tr>\n");
}

}  // namespace

std::string EngineTable(const ReportRuns& runs) {
  if (runs.runs().empty()) return "<p class=\"no-data\">no data</p>\n";
  std::vector<std::string> headers = {"tier",
                                      "concurrency",
                                      "KV usage mean (%)",
                                      "KV usage max (%)",
                                      "preemptions",
                                      "GPU prefix-cache query tokens",
                                      "GPU prefix-cache hit tokens",
                                      "external query tokens (how vLLM counted them)",
                                      "offload served tokens (external hits)",
                                      "offload served (% of prompt tokens)",
                                      "LMCache lookup hit rate (%)"};
  if (runs.several_agents()) headers.insert(headers.begin(), "agent");
  std::string out = absl::StrCat("<div class=\"wide\"><table class=\"engine\">\n<thead><tr><th>",
                                 absl::StrJoin(headers, "</th><th>"), "</th></tr></thead>\n");
  for (const ReportRun& run : runs.runs()) out += Row(runs, run);
  return absl::StrCat(
      out, "</table></div>\n",
      "<p class=\"table-note\">KV usage: over the scrapes taken during the replay (not "
      "the idle ones before and after it). Token counts: increases from the "
      "scrape before the replay to the one after it, summed over replicas. The "
      "LMCache lookup hit rate counts lookups (a request looked up again after a "
      "preemption counts again, and tokens the GPU already held count too); what "
      "offload served is the external hits.</p>\n");
}

}  // namespace kvbench::report
