#include "controller/regression/bootstrap_value.h"

#include <catch2/catch.hpp>
#include <vector>

#include "tests/unit/controller/regression/synthetic_runs.h"

namespace kvbench::regression {
namespace {

using testing::RunShape;
using testing::SyntheticRows;

const MetricInterval& Of(const std::vector<MetricInterval>& intervals, RegressionMetric metric) {
  return intervals[static_cast<int>(metric)];
}

DiffOptions Resamples(int resamples) {
  DiffOptions options;
  options.resamples = resamples;
  return options;
}

TEST_CASE("Users without spread give an exact interval at the value", "[regression]") {
  RunShape shape;
  shape.user_spread = 0;
  shape.request_spread = 0;
  const auto intervals =
      BootstrapValues({GroupByUser("run", SyntheticRows(shape, 1))}, Resamples(200));
  const MetricInterval& p95 = Of(intervals, RegressionMetric::kTtftP95);
  CHECK(*p95.value == Approx(0.2));
  CHECK(*p95.low == Approx(0.2));
  CHECK(*p95.high == Approx(0.2));
}

TEST_CASE("The interval holds the value, and runs that differ widen it", "[regression]") {
  // Three runs of one shape, and three whose whole level moves +-15% run to run.
  std::vector<RunSample> same;
  std::vector<RunSample> moving;
  const double levels[] = {0.85, 1.0, 1.15};
  for (int r = 0; r < 3; ++r) {
    same.push_back(GroupByUser("same", SyntheticRows(RunShape{}, 10 + r)));
    RunShape shape;
    shape.ttft_s *= levels[r];
    moving.push_back(GroupByUser("moving", SyntheticRows(shape, 10 + r)));
  }
  const MetricInterval a = Of(BootstrapValues(same, Resamples(1000)), RegressionMetric::kTtftP95);
  const MetricInterval b = Of(BootstrapValues(moving, Resamples(1000)), RegressionMetric::kTtftP95);
  for (const MetricInterval& interval : {a, b}) {
    REQUIRE(interval.low.has_value());
    CHECK(*interval.low <= *interval.value);
    CHECK(*interval.value <= *interval.high);
  }
  CHECK(*b.high - *b.low > *a.high - *a.low);
  // Deterministic given the seed and stream; another stream draws other resamples.
  CHECK(*Of(BootstrapValues(same, Resamples(1000)), RegressionMetric::kTtftP95).low == *a.low);
  CHECK(*Of(BootstrapValues(same, Resamples(1000), 7), RegressionMetric::kTtftP95).low != *a.low);
}

TEST_CASE("Too few users to resample: a value without an interval", "[regression]") {
  RunShape shape;
  shape.users = 3;
  const auto intervals = BootstrapValues({GroupByUser("run", SyntheticRows(shape, 1))}, {});
  const MetricInterval& p95 = Of(intervals, RegressionMetric::kTtftP95);
  CHECK(p95.value.has_value());
  CHECK_FALSE(p95.low.has_value());
  CHECK_THAT(p95.note, Catch::Contains("too few virtual users"));
}

}  // namespace
}  // namespace kvbench::regression
