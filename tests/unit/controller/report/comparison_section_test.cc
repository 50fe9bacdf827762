#include "controller/report/comparison_section.h"

#include <catch2/catch.hpp>
#include <string>

#include "controller/report/html_report.h"
#include "controller/report/summary_section.h"
#include "tests/unit/controller/report/synthetic_job.h"

namespace kvbench::report {
namespace {

// GPU vs CPU_RAM at concurrency 16: TTFT p95 clearly lower on CPU_RAM, TTFT p50 unclear.
std::vector<results::ComparisonGroup> TwoTiers() {
  results::ComparisonGroup group;
  group.comparison_group = "c16";
  group.concurrency = 16;
  group.interval_note = "3 repeats per tier: 95% intervals";
  group.columns.resize(2);
  group.columns[0].tier = v1::GPU;
  group.columns[1].tier = v1::CPU_RAM;
  group.baseline = 0;
  results::ComparisonRow p95;
  p95.metric = "TTFT p95";
  p95.unit = "ms";
  p95.values = {1000.0, 780.0};
  p95.deltas = {std::nullopt, -22.0};
  p95.intervals = {std::nullopt, results::DeltaInterval{-35.1, -8.2}};
  results::ComparisonRow p50 = p95;
  p50.metric = "TTFT p50";
  p50.deltas = {std::nullopt, 4.0};
  p50.intervals = {std::nullopt, results::DeltaInterval{-3.0, 11.0}};
  group.rows = {p95, p50};
  return {group};
}

TEST_CASE("The report's tier comparison shows each delta with its interval") {
  const std::string html = ComparisonSection(TwoTiers());
  CHECK_THAT(html, Catch::Contains("<h3>Concurrency 16</h3>"));
  CHECK_THAT(html, Catch::Contains("3 repeats per tier"));
  CHECK_THAT(html, Catch::Contains("<th>CPU_RAM vs GPU</th>"));
  CHECK_THAT(html, Catch::Contains("<td>-22.0% [-35.1%, -8.2%]</td>"));
  CHECK_THAT(html,
             Catch::Contains("<td class=\"unclear\">no clear difference [-3.0%, +11.0%]</td>"));
  CHECK_THAT(html, !Catch::Contains("+4.0%"));
}

TEST_CASE("The tier comparison comes right after the validity verdicts, only when given") {
  const std::vector<results::ComparisonGroup> groups = TwoTiers();
  const std::string with = RenderHtmlReport(testing::SyntheticJob(), {}, nullptr, "", &groups);
  const size_t validity = with.find("<h2>Validity</h2>");
  const size_t comparison = with.find("<h2>Tier comparison</h2>");
  const size_t parameters = with.find("<h2>Parameters</h2>");
  REQUIRE(comparison != std::string::npos);
  CHECK(validity < comparison);
  CHECK(comparison < parameters);
  CHECK(RenderHtmlReport(testing::SyntheticJob(), {}).find("Tier comparison") == std::string::npos);
}

TEST_CASE("At a glance: the faster tier of a valid comparison, none of one that is not") {
  std::vector<results::ComparisonGroup> groups = TwoTiers();
  // No verdict yet: no answer.
  CHECK(TtftP95Winner(groups[0]) == "no answer (no verdict)");
  groups[0].validity.emplace();
  groups[0].validity->set_verdict(v1::VERDICT_VALID);
  CHECK(TtftP95Winner(groups[0]) == "CPU_RAM");  // [-35.1%, -8.2%]: wholly below 0
  const std::string html = SummarySection(groups);
  CHECK_THAT(html, Catch::Contains("<h2>At a glance</h2>"));
  CHECK_THAT(html, Catch::Contains("CPU_RAM: -22.0% [-35.1%, -8.2%]"));
  CHECK_THAT(html, Catch::Contains("<td class=\"winner\">CPU_RAM</td>"));
  // An interval holding 0: no clear difference; wholly above 0: GPU wins.
  groups[0].rows[0].intervals[1] = results::DeltaInterval{-5, 9};
  CHECK(TtftP95Winner(groups[0]) == "no clear difference");
  groups[0].rows[0].deltas[1] = 20.0;
  groups[0].rows[0].intervals[1] = results::DeltaInterval{8, 31};
  CHECK(TtftP95Winner(groups[0]) == "GPU");
  // Not exercised: no answer, with the reason's code.
  groups[0].validity->set_verdict(v1::VERDICT_NOT_EXERCISED);
  groups[0].validity->add_reasons()->set_code("gpu_never_ran_short");
  CHECK(TtftP95Winner(groups[0]) == "no answer (not exercised: gpu_never_ran_short)");
}

TEST_CASE("The report's comparison states its caveats") {
  std::vector<results::ComparisonGroup> groups = TwoTiers();
  groups[0].caveats = {"small sample (GPU 10 requests of 2 users)"};
  CHECK_THAT(ComparisonSection(groups),
             Catch::Contains("caveat: small sample (GPU 10 requests of 2 users)"));
}

}  // namespace
}  // namespace kvbench::report
