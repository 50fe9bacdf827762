// Axis ranges and ticks, and the number formats of the report.

#include <catch2/catch.hpp>

#include "controller/report/chart_axis.h"
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
