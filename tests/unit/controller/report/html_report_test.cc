// The HTML report of a synthetic job (3 tiers x 2 concurrencies): its structure as a reader and
// the e2e browser check see it.

#include "controller/report/html_report.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/unit/controller/report/synthetic_job.h"

namespace kvbench::report {
namespace {

using testing::SyntheticJob;
using testing::SyntheticValidity;

int Count(const std::string& haystack, const std::string& needle) {
  int count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

struct Chart {
  int points = 0;
  std::string svg;
};

// Every <svg class="chart" data-points="N">...</svg>, in document order.
std::vector<Chart> Charts(const std::string& html) {
  std::vector<Chart> charts;
  const std::string open = "<svg class=\"chart\" data-points=\"";
  for (size_t start = html.find(open); start != std::string::npos;
       start = html.find(open, start + 1)) {
    const size_t digits = start + open.size();
    const size_t end = html.find("</svg>", start);
    charts.push_back({std::stoi(html.substr(digits)), html.substr(start, end - start)});
  }
  return charts;
}

// The chart whose title contains `title`.
Chart ChartTitled(const std::string& html, const std::string& title) {
  for (const Chart& chart : Charts(html)) {
    if (chart.svg.find("chart-title") != std::string::npos &&
        chart.svg.find(title) != std::string::npos) {
      return chart;
    }
  }
  FAIL("no chart titled " << title);
  return {};
}

std::string Render(const v1::Job& job) { return RenderHtmlReport(job, SyntheticValidity()); }

TEST_CASE("every chart of a full job is drawn, with points, units and a legend") {
  const std::string html = Render(SyntheticJob());
  const std::vector<Chart> charts = Charts(html);
  // TTFT vs concurrency; per round x2; hit rate x2; KV usage x2; requests/s; tokens/s.
  REQUIRE(charts.size() == 9);
  REQUIRE(Count(html, "<svg class=\"chart\"") == 9);
  for (const Chart& chart : charts) {
    CHECK(chart.points > 0);
    CHECK(Count(chart.svg, "class=\"axis-label x-label\"") == 1);
    CHECK(Count(chart.svg, "class=\"axis-label y-label\"") == 1);
    CHECK(Count(chart.svg, "class=\"legend-entry\"") >= 3);
    CHECK(Count(chart.svg, "<title>") == chart.points);  // a hover value per point
    CHECK(chart.svg.find("no data") == std::string::npos);
    for (const char* tier : {"GPU", "CPU_RAM", "NVME"}) {
      CHECK(chart.svg.find(std::string("data-series=\"") + tier) != std::string::npos);
    }
  }
  // 3 tiers x 2 concurrencies x (p50, p95).
  CHECK(ChartTitled(html, "TTFT p50 and p95 by concurrency").points == 12);
  // 3 tiers x 3 rounds.
  CHECK(ChartTitled(html, "TTFT p50 per round, concurrency 8").points == 9);
  // 6 samples: local for 3 tiers, external for CPU_RAM and NVME.
  CHECK(ChartTitled(html, "hit rate over time, concurrency 2").points == 30);
  CHECK(ChartTitled(html, "KV cache usage over time, concurrency 2").points == 18);
  CHECK(ChartTitled(html, "requests per second").points == 6);
  CHECK(Count(ChartTitled(html, "requests per second").svg, "<rect class=\"bar\"") == 6);
  CHECK(Count(ChartTitled(html, "TTFT p50 and p95").svg, "<circle class=\"point\"") == 12);
}

TEST_CASE("axis labels carry their units") {
  const std::string html = Render(SyntheticJob());
  for (const char* label : {">TTFT (ms)<", ">TTFT p50 (ms)<", ">time since replay start (s)<",
                            ">hit rate (%)<", ">KV cache usage (%)<", ">throughput (req/s)<",
                            ">output throughput (tok/s)<", ">concurrency (virtual users)<"}) {
    CHECK(html.find(label) != std::string::npos);
  }
}

TEST_CASE("each tier has one colour in every chart") {
  const std::string html = Render(SyntheticJob());
  // class="legend-entry" data-series="TIER..." data-color="COLOR"
  const std::string entry = "class=\"legend-entry\" data-series=\"";
  const std::string color_attribute = "\" data-color=\"";
  int entries = 0;
  for (size_t at = html.find(entry); at != std::string::npos;
       at = html.find(entry, at + 1), ++entries) {
    const size_t series = at + entry.size();
    const size_t series_end = html.find('"', series);
    REQUIRE(html.compare(series_end, color_attribute.size(), color_attribute) == 0);
    const std::string tier =
        html.substr(series, html.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_", series) - series);
    const size_t color_start = series_end + color_attribute.size();
    const std::string color = html.substr(color_start, html.find('"', color_start) - color_start);
    if (tier == "GPU") CHECK(color == "#0072B2");
    if (tier == "CPU_RAM") CHECK(color == "#E69F00");
    if (tier == "NVME") CHECK(color == "#009E73");
  }
  CHECK(entries >= 27);
  const Chart ttft = ChartTitled(html, "TTFT p50 and p95 by concurrency");
  CHECK(Count(ttft.svg, "fill=\"#0072B2\"") == 4 + 2);  // 4 points, 2 legend markers
}

TEST_CASE("verdicts are prominent, with their reasons") {
  const std::string html = Render(SyntheticJob());
  CHECK(html.find("class=\"banner banner-invalid\"") != std::string::npos);
  CHECK(html.find("<span class=\"verdict-label\">INVALID</span> comparison group c8") !=
        std::string::npos);
  CHECK(html.find("<span class=\"verdict-label\">VALID</span> comparison group c2") !=
        std::string::npos);
  CHECK(html.find("achieved_sessions_differ") != std::string::npos);
  CHECK(html.find("NVME &lt;12&gt;") != std::string::npos);

  std::vector<v1::Validity> not_exercised = SyntheticValidity();
  not_exercised[0].set_verdict(v1::VERDICT_NOT_EXERCISED);
  const std::string html2 = RenderHtmlReport(SyntheticJob(), not_exercised);
  CHECK(html2.find("banner banner-not-exercised") != std::string::npos);
  CHECK(html2.find(">NOT EXERCISED</span>") != std::string::npos);

  // All valid says so too: a reader need not infer it from the absence of the others.
  const std::string all_valid = RenderHtmlReport(SyntheticJob(), {SyntheticValidity()[0]});
  CHECK(all_valid.find("class=\"banner banner-valid\"") != std::string::npos);
  CHECK(all_valid.find("class=\"banner banner-invalid") == std::string::npos);
  CHECK(all_valid.find("class=\"banner banner-not-exercised") == std::string::npos);
}

TEST_CASE("verdict notes are shown, after the reasons") {
  std::vector<v1::Validity> validity = SyntheticValidity();
  v1::ValidityReason* note = validity[0].add_notes();
  note->set_code("routing_differs");
  note->set_message("CPU_RAM ran least_conn <over 2 replicas>");
  const std::string html = RenderHtmlReport(SyntheticJob(), validity);
  CHECK(html.find("<li>note <code>routing_differs</code> CPU_RAM ran least_conn &lt;over 2 "
                  "replicas&gt;</li>") != std::string::npos);
}

TEST_CASE("the sessions table shows every outcome and how the users were chosen") {
  v1::Job job = SyntheticJob();
  v1::SessionCounts* s = job.mutable_scenarios(0)->mutable_result()->mutable_sessions();
  s->set_not_started(2);
  s->set_truncated_by_isl(3);
  s->set_dataset_ceiling_under_isl(7);
  s->set_selection("8 of 12 virtual users, seeded (seed 0)");
  const std::string html = Render(job);
  for (const char* header : {"<th>ceiling under ISL</th>", "<th>not started</th>",
                             "<th>truncated by ISL</th>", "<th>users chosen</th>"}) {
    INFO(header);
    CHECK(html.find(header) != std::string::npos);
  }
  CHECK(html.find("<td>2</td><td>3</td>") != std::string::npos);
  CHECK(html.find("<td>8 of 12 virtual users, seeded (seed 0)</td>") != std::string::npos);
}

TEST_CASE("the job's parameters are listed and text is HTML-escaped") {
  const std::string html = Render(SyntheticJob());
  CHECK(html.find("demo &lt;sim&gt; &amp; co") != std::string::npos);
  CHECK(html.find("demo <sim>") == std::string::npos);
  CHECK(html.find("note=&lt;b&gt;bold&lt;/b&gt; &quot;quoted&quot;, team=serving") !=
        std::string::npos);  // labels sorted by key
  CHECK(html.find("<b>bold") == std::string::npos);
  for (const char* text : {"meta-llama/Llama-3.1-8B-Instruct", "job-report-1", ">SIM<", ">NVIDIA<",
                           "tau2-bench-v1", "2, 8", ">64<", ">16<"}) {
    CHECK(html.find(text) != std::string::npos);
  }
}

TEST_CASE("a null value is skipped, never drawn as 0") {
  v1::Job job = SyntheticJob();
  job.mutable_scenarios(3)->mutable_result()->mutable_latency()->clear_ttft_p95_s();  // GPU c8
  job.mutable_scenarios(0)->mutable_result()->mutable_latency()->clear_requests_per_s();
  job.mutable_scenarios(0)
      ->mutable_result()
      ->mutable_latency()
      ->mutable_ttft_by_round(1)
      ->clear_ttft_p50_s();
  const std::string html = Render(job);
  const Chart ttft = ChartTitled(html, "TTFT p50 and p95 by concurrency");
  CHECK(ttft.points == 11);
  CHECK(ttft.svg.find(": 0 ms") == std::string::npos);
  CHECK(ChartTitled(html, "requests per second").points == 5);
  const Chart rounds = ChartTitled(html, "TTFT p50 per round, concurrency 2");
  CHECK(rounds.points == 8);
  CHECK(rounds.svg.find("GPU, round 2") == std::string::npos);
  // GPU's round line breaks at the gap: two single points, no polyline.
  CHECK(Count(rounds.svg, "<polyline") == 2);
}

TEST_CASE("a job without results says no data in every chart") {
  v1::Job job = SyntheticJob();
  for (v1::ScenarioStatus& status : *job.mutable_scenarios()) {
    status.clear_result();
    status.set_state(v1::SCENARIO_STATE_FAILED);
    status.set_error("replica exited <1>");
  }
  const std::string html = RenderHtmlReport(job, {});
  const std::vector<Chart> charts = Charts(html);
  REQUIRE(charts.size() == 9);
  for (const Chart& chart : charts) {
    CHECK(chart.points == 0);
    CHECK(chart.svg.find(">no data<") != std::string::npos);
    CHECK(chart.svg.find("class=\"axis-label y-label\"") != std::string::npos);
  }
  CHECK(html.find("replica exited &lt;1&gt;") != std::string::npos);
  CHECK(html.find("No verdicts") != std::string::npos);
}

TEST_CASE("a series missing for one tier leaves the others drawn") {
  v1::Job job = SyntheticJob();
  for (v1::ScenarioStatus& status : *job.mutable_scenarios()) {
    status.mutable_result()->clear_series();
  }
  const std::string html = Render(job);
  CHECK(ChartTitled(html, "hit rate over time, concurrency 2").points == 0);
  CHECK(ChartTitled(html, "hit rate over time, concurrency 2").svg.find("no data") !=
        std::string::npos);
  CHECK(ChartTitled(html, "TTFT p50 and p95").points == 12);
}

TEST_CASE("the report is self-contained and deterministic") {
  const std::string html = Render(SyntheticJob());
  CHECK(html.find("http://") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(Render(SyntheticJob()) == html);
}

TEST_CASE("LMCache and disk figures of the offload tiers, session counts of all") {
  const std::string html = Render(SyntheticJob());
  const size_t offload = html.find("<table class=\"offload\">");
  REQUIRE(offload != std::string::npos);
  const std::string table = html.substr(offload, html.find("</table>", offload) - offload);
  CHECK(Count(table, "<tr><td>") == 4);  // CPU_RAM and NVME at 2 concurrencies
  CHECK(table.find("nvme0n1") != std::string::npos);
  CHECK(table.find(">42<") != std::string::npos);    // hit rate in %
  CHECK(table.find(">2.25<") != std::string::npos);  // disk read GB/s
  const size_t sessions = html.find("<table class=\"sessions\">");
  REQUIRE(sessions != std::string::npos);
  CHECK(Count(html.substr(sessions, html.find("</table>", sessions) - sessions), "<tr><td>") == 6);
}

TEST_CASE("the engine table: KV usage mean/max, token counts, what offload served") {
  const std::string html = Render(SyntheticJob());
  const size_t engine = html.find("<table class=\"engine\">");
  REQUIRE(engine != std::string::npos);
  const std::string table = html.substr(engine, html.find("</table>", engine) - engine);
  CHECK(Count(table, "<tr><td>") == 6);              // every tier at 2 concurrencies
  CHECK(table.find(">40.5<") != std::string::npos);  // KV usage mean in %
  CHECK(table.find(">87.5<") != std::string::npos);  // KV usage max in %
  CHECK(table.find(">3000<") != std::string::npos);  // offload served tokens
  // 3,000 of 20,000 prompt tokens, in % (15.000000000000002 in doubles)
  CHECK((table.find(">15<") != std::string::npos || table.find(">15.0<") != std::string::npos));
  CHECK(table.find("LMCache lookup hit rate (%)") != std::string::npos);
  // LMCache's rate is labelled lookup-based wherever it appears.
  CHECK(html.find("LMCache hit rate") == std::string::npos);
}

TEST_CASE("a simulated engine's times are shown in simulated seconds, labelled") {
  // Every result at sim_time_scale 0.05 with its simulated_latency (observed x 20 for times).
  v1::Job job = SyntheticJob();
  for (v1::ScenarioStatus& status : *job.mutable_scenarios()) {
    v1::ScenarioResult* result = status.mutable_result();
    result->set_sim_time_scale(0.05);
    v1::LatencyMetrics* simulated = result->mutable_simulated_latency();
    *simulated = result->latency();
    simulated->set_ttft_p50_s(result->latency().ttft_p50_s() / 0.05);
    simulated->set_ttft_p95_s(result->latency().ttft_p95_s() / 0.05);
    simulated->set_requests_per_s(result->latency().requests_per_s() * 0.05);
  }
  const std::string html = RenderHtmlReport(job, SyntheticValidity());
  CHECK(html.find("times in simulated seconds (sim_time_scale 0.05: observed × 20)") !=
        std::string::npos);
  for (const char* label :
       {">TTFT (simulated ms)<", ">TTFT p50 (simulated ms)<",
        ">time since replay start (simulated s)<", ">throughput (simulated req/s)<"}) {
    INFO(label);
    CHECK(html.find(label) != std::string::npos);
  }
  CHECK(html.find(">TTFT (ms)<") == std::string::npos);
  // GPU at concurrency 2: p50 observed 0.1 + 0.1 + 0.02 = 0.22 s, shown as 4400 simulated ms.
  const Chart ttft = ChartTitled(html, "TTFT p50 and p95 by concurrency");
  CHECK(ttft.svg.find("GPU p50, concurrency 2: 4400 simulated ms") != std::string::npos);
  // The samples at t = 15 s (real) are at 300 simulated seconds.
  CHECK(ChartTitled(html, "hit rate over time, concurrency 2").svg.find("t = 300 simulated s") !=
        std::string::npos);
  // The disk figures of a simulated engine are under scaled L2 files, and say so.
  CHECK(html.find("kvsim-lmcache's <em>scaled</em> L2 files") != std::string::npos);
  CHECK(RenderHtmlReport(SyntheticJob(), SyntheticValidity()).find("<em>scaled</em>") ==
        std::string::npos);
}

}  // namespace
}  // namespace kvbench::report
