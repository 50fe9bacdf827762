#include "controller/report/html_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "controller/report/bar_chart.h"
#include "controller/report/capacity_section.h"
#include "controller/report/comparison_section.h"
#include "controller/report/diff_section.h"
#include "controller/report/engine_table.h"
#include "controller/report/line_chart.h"
#include "controller/report/report_charts.h"
#include "controller/report/report_runs.h"
#include "controller/report/report_style.h"
#include "controller/report/report_tables.h"
#include "controller/report/summary_section.h"
#include "controller/report/text_format.h"
#include "controller/report/versions_table.h"
#include "controller/results/simulated_time_display.h"

namespace kvbench::report {
namespace {

std::string Header(const v1::Job& job) {
  std::string meta =
      absl::StrCat("job <code>", HtmlEscape(job.job_id()), "</code>, ",
                   std::string(absl::StripPrefix(v1::JobState_Name(job.state()), "JOB_STATE_")));
  if (job.submit_unix_ms() > 0) {
    absl::StrAppend(
        &meta, ", submitted ",
        absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::FromUnixMillis(job.submit_unix_ms()),
                         absl::UTCTimeZone()));
  }
  if (!job.error().empty()) absl::StrAppend(&meta, "<br>error: ", HtmlEscape(job.error()));
  return absl::StrCat("<h1>kvbench report: ", HtmlEscape(job.spec().name()), " (",
                      HtmlEscape(job.job_id()), ")</h1>\n<p class=\"meta\">", meta, "</p>\n");
}

// A banner at the top when any comparison is not valid: impossible to miss.
std::string Banner(const std::vector<v1::Validity>& validity) {
  int invalid = 0, not_exercised = 0;
  for (const v1::Validity& group : validity) {
    if (group.verdict() == v1::VERDICT_INVALID) ++invalid;
    if (group.verdict() == v1::VERDICT_NOT_EXERCISED) ++not_exercised;
  }
  std::string out;
  if (!validity.empty() && invalid == 0 && not_exercised == 0) {
    absl::StrAppend(&out, "<div class=\"banner banner-valid\" role=\"status\">VALID: all ",
                    validity.size(),
                    " comparison group(s) exercised offload and can be compared across "
                    "tiers.</div>\n");
  }
  if (invalid > 0) {
    absl::StrAppend(&out, "<div class=\"banner banner-invalid\" role=\"alert\">INVALID: ", invalid,
                    " of ", validity.size(),
                    " comparison group(s) cannot be compared across tiers; see Validity.</div>\n");
  }
  if (not_exercised > 0) {
    absl::StrAppend(&out,
                    "<div class=\"banner banner-not-exercised\" role=\"alert\">"
                    "NOT EXERCISED: in ",
                    not_exercised, " of ", validity.size(),
                    " comparison group(s) the KV working set fit in GPU memory, so offload was "
                    "never needed and the tier comparison says nothing about it.</div>\n");
  }
  return out;
}

std::string ChartsOf(const ReportRuns& runs, const std::string& heading_suffix) {
  std::string out = absl::StrCat("<h2>TTFT", heading_suffix, "</h2>\n<div class=\"charts\">\n",
                                 LineChart(TtftByConcurrencyChart(runs)).RenderSvg());
  for (int concurrency : runs.concurrencies()) {
    out += LineChart(TtftByRoundChart(runs, concurrency)).RenderSvg();
  }
  absl::StrAppend(&out, "</div>\n<h2>Prefix-cache hit rates", heading_suffix,
                  "</h2>\n<div class=\"charts\">\n");
  for (int concurrency : runs.concurrencies()) {
    out += LineChart(HitRateChart(runs, concurrency)).RenderSvg();
  }
  absl::StrAppend(&out, "</div>\n<h2>KV cache usage", heading_suffix,
                  "</h2>\n<div class=\"charts\">\n");
  for (int concurrency : runs.concurrencies()) {
    out += LineChart(KvCacheUsageChart(runs, concurrency)).RenderSvg();
  }
  return absl::StrCat(out, "</div>\n<h2>Throughput", heading_suffix,
                      "</h2>\n<div class=\"charts\">\n",
                      BarChart(RequestsPerSecondChart(runs)).RenderSvg(),
                      BarChart(OutputTokensPerSecondChart(runs)).RenderSvg(), "</div>\n");
}

// The charts; a FAN_OUT_EACH job's once per agent, each headed and titled with its agent (the
// tiers are compared on one node, never across nodes).
std::string Charts(const ReportRuns& runs) {
  if (!runs.several_agents()) return ChartsOf(runs, "");
  std::string out;
  for (const std::string& agent : runs.agents()) {
    out += ChartsOf(runs.ForAgent(agent), absl::StrCat(": agent ", HtmlEscape(agent)));
  }
  return out;
}

// For a simulated engine: the times shown are simulated seconds, said once at the top.
std::string SimulatedTimeNote(const ReportRuns& runs) {
  std::vector<const v1::ScenarioResult*> results;
  for (const ReportRun& run : runs.runs()) results.push_back(run.result);
  const std::string note = results::SimulatedTimeNote(results);
  if (note.empty()) return "";
  return absl::StrCat("<p class=\"time-note\">Simulated engine: ", HtmlEscape(note),
                      "; result.json keeps the observed times too.</p>\n");
}

}  // namespace

std::string RenderHtmlReport(const v1::Job& job, const std::vector<v1::Validity>& validity,
                             const regression::JobDiff* diff, const std::string& baseline_name,
                             const std::vector<results::ComparisonGroup>* comparison) {
  const ReportRuns runs(job);
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
      "<title>kvbench report: ", HtmlEscape(job.spec().name()), " (", HtmlEscape(job.job_id()),
      ")</title>\n<style>", ReportStyle(), "</style>\n</head>\n<body>\n", Header(job),
      CapacitySection(job.capacity()), SimulatedTimeNote(runs), Banner(validity),
      comparison == nullptr ? "" : SummarySection(*comparison), "<h2>Validity</h2>\n",
      ValiditySection(validity), comparison == nullptr ? "" : ComparisonSection(*comparison),
      diff == nullptr ? "" : DiffSection(*diff, baseline_name), "<h2>Parameters</h2>\n",
      ParametersTable(job), "<h2>Scenarios</h2>\n", ScenariosTable(job), Charts(runs),
      "<h2>Engine (vLLM)</h2>\n", EngineTable(runs), "<h2>Sessions</h2>\n", SessionsTable(runs),
      "<h2>LMCache and disk (CPU_RAM, NVME)</h2>\n", OffloadTable(runs), "<h2>What ran</h2>\n",
      VersionsTable(runs), "</body>\n</html>\n");
}

}  // namespace kvbench::report
