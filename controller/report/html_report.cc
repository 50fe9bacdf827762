#include "controller/report/html_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "controller/report/bar_chart.h"
#include "controller/report/engine_table.h"
#include "controller/report/line_chart.h"
#include "controller/report/report_charts.h"
#include "controller/report/report_runs.h"
#include "controller/report/report_tables.h"
#include "controller/report/text_format.h"
#include "controller/results/simulated_time_display.h"

namespace kvbench::report {
namespace {

// Inline, so the file stands alone: system fonts only, print-friendly.
constexpr char kStyle[] = R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px;
       color: #1a1a1a; max-width: 1500px; }
h1 { margin-bottom: 4px; } h2 { margin-top: 32px; border-bottom: 1px solid #ccc; }
.meta { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 8px 0; font-size: 14px; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
thead th { background: #f2f2f2; }
table.params th { background: #f7f7f7; font-weight: 600; }
.wide { overflow-x: auto; }
table.offload td, table.sessions td { white-space: nowrap; }
.tier-swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
.banner { padding: 14px 18px; margin: 16px 0; font-size: 20px; font-weight: 700;
          border: 4px solid; }
.banner-invalid { background: #fde2e1; border-color: #b00020; color: #b00020; }
.banner-not-exercised { background: #fff4d6; border-color: #8a5a00; color: #8a5a00; }
.verdict { border-left: 10px solid; padding: 6px 14px; margin: 10px 0; }
.verdict h3 { margin: 6px 0; }
.verdict-label { font-size: 22px; margin-right: 8px; }
.verdict-valid { border-color: #1b7f3b; background: #e6f4ea; }
.verdict-valid .verdict-label { color: #1b7f3b; }
.verdict-invalid { border-color: #b00020; background: #fde2e1; }
.verdict-invalid .verdict-label { color: #b00020; }
.verdict-not-exercised { border-color: #8a5a00; background: #fff4d6; }
.verdict-not-exercised .verdict-label { color: #8a5a00; }
.verdict-unspecified { border-color: #666; background: #f2f2f2; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
svg.chart { border: 1px solid #ddd; background: #fff; font-size: 12px; }
svg.chart .chart-title { font-size: 15px; font-weight: 600; }
svg.chart .axis { stroke: #333; stroke-width: 1; }
svg.chart .tick line { stroke: #333; }
svg.chart .grid { stroke: #e5e5e5; }
svg.chart .axis-label { font-size: 13px; }
svg.chart .no-data { font-size: 18px; fill: #777; }
p.no-data { color: #777; }
p.table-note { color: #555; font-size: 13px; max-width: 60em; }
p.time-note { font-weight: 600; color: #333; }
)css";

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

std::string Charts(const ReportRuns& runs) {
  std::string out = absl::StrCat("<h2>TTFT</h2>\n<div class=\"charts\">\n",
                                 LineChart(TtftByConcurrencyChart(runs)).RenderSvg());
  for (int concurrency : runs.concurrencies()) {
    out += LineChart(TtftByRoundChart(runs, concurrency)).RenderSvg();
  }
  out += "</div>\n<h2>Prefix-cache hit rates</h2>\n<div class=\"charts\">\n";
  for (int concurrency : runs.concurrencies()) {
    out += LineChart(HitRateChart(runs, concurrency)).RenderSvg();
  }
  out += "</div>\n<h2>KV cache usage</h2>\n<div class=\"charts\">\n";
  for (int concurrency : runs.concurrencies()) {
    out += LineChart(KvCacheUsageChart(runs, concurrency)).RenderSvg();
  }
  return absl::StrCat(out, "</div>\n<h2>Throughput</h2>\n<div class=\"charts\">\n",
                      BarChart(RequestsPerSecondChart(runs)).RenderSvg(),
                      BarChart(OutputTokensPerSecondChart(runs)).RenderSvg(), "</div>\n");
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

std::string RenderHtmlReport(const v1::Job& job, const std::vector<v1::Validity>& validity) {
  const ReportRuns runs(job);
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
      "<title>kvbench report: ", HtmlEscape(job.spec().name()), " (", HtmlEscape(job.job_id()),
      ")</title>\n<style>", kStyle, "</style>\n</head>\n<body>\n", Header(job),
      SimulatedTimeNote(runs), Banner(validity), "<h2>Validity</h2>\n", ValiditySection(validity),
      "<h2>Parameters</h2>\n", ParametersTable(job), "<h2>Scenarios</h2>\n", ScenariosTable(job),
      Charts(runs), "<h2>Engine (vLLM)</h2>\n", EngineTable(runs), "<h2>Sessions</h2>\n",
      SessionsTable(runs), "<h2>LMCache and disk (CPU_RAM, NVME)</h2>\n", OffloadTable(runs),
      "</body>\n</html>\n");
}

}  // namespace kvbench::report
