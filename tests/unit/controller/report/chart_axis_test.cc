// Axis ranges and ticks, and the number formats of the report.

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "controller/report/chart_axis.h"
#include "controller/report/metric_label.h"
#include "controller/report/text_format.h"

namespace kvbench::report {
namespace {

TEST_CASE("nice axes start at 0 and end on a round value above the data") {
  struct Case {
    double high;
    double max;
    std::string first_label;
    std::string last_label;
  };
  for (const Case& c : {Case{0.87, 1, "0.0", "1.0"}, Case{1234, 1500, "0", "1500"},
                        Case{100, 100, "0", "100"}, Case{0, 1, "0.0", "1.0"},
                        Case{7.3, 8, "0", "8"}}) {
    const ChartAxis axis = ChartAxis::Nice(0, c.high);
    CAPTURE(c.high);
    CHECK(axis.min == 0);
    CHECK(axis.max == Approx(c.max));
    REQUIRE(!axis.ticks.empty());
    CHECK(axis.ticks.front().label == c.first_label);
    CHECK(axis.ticks.back().label == c.last_label);
    CHECK(axis.ticks.size() <= ChartAxis::kTargetTicks + 2);
  }
}

TEST_CASE("explicit and category axes tick where asked") {
  const ChartAxis rounds = ChartAxis::AtValues({1, 2, 3});
  REQUIRE(rounds.ticks.size() == 3);
  CHECK(rounds.min < 1);
  CHECK(rounds.max > 3);
  const ChartAxis one = ChartAxis::AtValues({8});
  CHECK(one.min < 8);
  CHECK(one.max > 8);
  const ChartAxis categories = ChartAxis::Categories({"a", "b"});
  CHECK(categories.ticks[1].value == 1.5);
  CHECK(categories.ticks[1].label == "b");
}

TEST_CASE("a time axis ticks at whole hours or days (UTC), covering every run") {
  // Six nightly runs at 02:00 UTC, 2026-12-01 .. 2026-12-06.
  const double first = 1796090400;  // 2026-12-01T02:00:00Z
  const ChartAxis nights = ChartAxis::Time(first, first + 5 * 86400);
  CHECK(nights.min < first);
  CHECK(nights.max > first + 5 * 86400);
  REQUIRE(nights.ticks.size() >= 3);
  REQUIRE(nights.ticks.size() <= ChartAxis::kTargetTicks + 1);
  CHECK(nights.ticks[0].label == "2026-12-01");  // the midnight after the padded start
  for (const AxisTick& tick : nights.ticks) CHECK(std::fmod(tick.value, 86400) == 0);
  // Ten runs in 20 minutes: ticks at 5-minute steps, labelled with the time.
  const ChartAxis burst = ChartAxis::Time(first, first + 1200);
  REQUIRE(burst.ticks.size() >= 3);
  CHECK(burst.ticks[0].label.size() == std::string("12-01 02:00").size());
  CHECK(std::fmod(burst.ticks[1].value - burst.ticks[0].value, 300) == 0);
  // Ten runs in one minute: whole minutes inside, at least three of them.
  const ChartAxis minute = ChartAxis::Time(first + 5, first + 65);
  CHECK(minute.ticks.size() >= 3);
  // One run: an hour either side.
  const ChartAxis one = ChartAxis::Time(first, first);
  CHECK(one.min == first - 3600);
  CHECK(one.max == first + 3600);
}

TEST_CASE("a metric reads in words and units, a simulated engine's times as simulated") {
  const MetricLabel p95 = LabelOfMetric("latency.ttft_p95_s", /*simulated=*/true);
  CHECK(p95.AxisLabel() == "TTFT p95 (simulated ms)");
  CHECK(p95.scale == 1000);
  CHECK(LabelOfMetric("latency.ttft_p95_s", false).AxisLabel() == "TTFT p95 (ms)");
  CHECK(LabelOfMetric("latency.requests_per_s", true).AxisLabel() ==
        "requests per second (simulated req/s)");
  const MetricLabel hit = LabelOfMetric("lmcache.lookup_hit_rate", true);
  CHECK(hit.AxisLabel() == "lookup hit rate (%)");
  CHECK(hit.scale == 100);
  CHECK(LabelOfMetric("engine.kv_cache_usage_mean", false).AxisLabel() ==
        "KV cache usage mean (%)");
  CHECK(LabelOfMetric("lmcache.l2_load_gb_per_s", false).AxisLabel() == "L2 load (GB/s)");
  CHECK(LabelOfMetric("capacity.users", false).AxisLabel() == "capacity (virtual users)");
  CHECK(LabelOfMetric("engine.num_preemptions", false).AxisLabel() == "number of preemptions");
}

TEST_CASE("numbers and escapes") {
  CHECK(FormatNumber(1234.4) == "1234");
  CHECK(FormatNumber(12.34) == "12.3");
  CHECK(FormatNumber(1.234) == "1.23");
  CHECK(FormatNumber(0.04567) == "0.0457");
  CHECK(FormatNumber(16) == "16");
  CHECK(FormatOptional(std::nullopt) == "&#8212;");
  CHECK(FormatTick(0.25, 0.05) == "0.25");
  CHECK(FormatTick(1500, 500) == "1500");
  CHECK(HtmlEscape("<a href='x'>&\"") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
}

}  // namespace
}  // namespace kvbench::report
