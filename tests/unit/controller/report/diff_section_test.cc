// The report's "Change against" section (kvctl diff --html, kvctl report --baseline): a banner
// counting regressions, one table per matched scenario with each metric's values, change,
// interval and verdict (regressions marked), the method line, and what did not match.

#include "controller/report/diff_section.h"

#include <catch2/catch.hpp>
#include <string>

#include "controller/report/html_report.h"
#include "tests/unit/controller/report/synthetic_job.h"

namespace kvbench::report {
namespace {

regression::JobDiff OneRegression() {
  regression::JobDiff diff;
  regression::ScenarioDiff& scenario = diff.scenarios.emplace_back();
  scenario.tier = v1::GPU;
  scenario.concurrency = 16;
  scenario.agent = "sim-a";
  scenario.before_runs = {"job-a/00-gpu-c16"};
  scenario.after_runs = {"job-b/00-gpu-c16"};
  regression::MetricDiff& p95 = scenario.metrics.emplace_back();
  p95.metric = regression::RegressionMetric::kTtftP95;
  p95.before = 0.8123;
  p95.after = 1.1467;
  p95.change = 41.17;
  p95.low = 30.52;
  p95.high = 52.81;
  p95.verdict = regression::DiffVerdict::kRegression;
  regression::MetricDiff& hits = scenario.metrics.emplace_back();
  hits.metric = regression::RegressionMetric::kCacheHitPct;
  hits.note = "not measured on both sides";
  diff.unmatched = {"after: nvme c16 @sim-a"};
  return diff;
}

TEST_CASE("The diff section shows each metric and marks regressions", "[report]") {
  const std::string html = DiffSection(OneRegression(), "job-a");
  CHECK(html.find("<h2>Change against job-a</h2>") != std::string::npos);
  CHECK(html.find("REGRESSION: 1 metric(s) against job-a") != std::string::npos);
  CHECK(html.find("<h3>gpu c16 @sim-a</h3>") != std::string::npos);
  CHECK(html.find("<tr class=\"diff-regression\"><td>TTFT p95 (ms)</td><td>812</td>"
                  "<td>1147</td><td>+41.2%</td><td>[+30.5%, +52.8%]</td><td>regression</td>") !=
        std::string::npos);
  CHECK(html.find("<td>not_measured (not measured on both sides)</td>") != std::string::npos);
  CHECK(html.find("unmatched after: nvme c16 @sim-a") != std::string::npos);
  CHECK(html.find("95% intervals from 2000 resamples of virtual users") != std::string::npos);
}

TEST_CASE("The report carries the diff section only when given one", "[report]") {
  const v1::Job job = testing::SyntheticJob();
  const regression::JobDiff diff = OneRegression();
  CHECK(RenderHtmlReport(job, {}).find("Change against") == std::string::npos);
  const std::string with = RenderHtmlReport(job, {}, &diff, "job-a");
  CHECK(with.find("<h2>Change against job-a</h2>") != std::string::npos);
  CHECK(with.find("<h2>Validity</h2>") < with.find("Change against"));
}

}  // namespace
}  // namespace kvbench::report
