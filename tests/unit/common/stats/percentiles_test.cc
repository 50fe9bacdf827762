#include "common/stats/percentiles.h"

#include <catch2/catch.hpp>
#include <vector>

namespace kvbench::stats {
namespace {

struct PercentileCase {
  const char* name;
  std::vector<double> values;
  double p;
  double expected;
};

TEST_CASE("Percentile linear interpolation between closest ranks", "[stats]") {
  // Hand-computed at rank h = (n - 1) * p / 100.
  const std::vector<PercentileCase> cases = {
      {"n=1 p0", {7}, 0, 7},
      {"n=1 p50", {7}, 50, 7},
      {"n=1 p99", {7}, 99, 7},
      {"n=1 p100", {7}, 100, 7},
      {"n=2 p0", {3, 1}, 0, 1},
      {"n=2 p50", {3, 1}, 50, 2},
      {"n=2 p90", {1, 3}, 90, 2.8},  // h = 0.9
      {"n=2 p100", {1, 3}, 100, 3},
      {"n=5 unsorted p25", {5, 1, 4, 2, 3}, 25, 2},     // h = 1
      {"n=5 unsorted p50", {5, 1, 4, 2, 3}, 50, 3},     // h = 2
      {"n=5 unsorted p90", {5, 1, 4, 2, 3}, 90, 4.6},   // h = 3.6
      {"n=5 unsorted p95", {5, 1, 4, 2, 3}, 95, 4.8},   // h = 3.8
      {"n=5 unsorted p99", {5, 1, 4, 2, 3}, 99, 4.96},  // h = 3.96
      {"ties p50", {2, 8, 2, 2}, 50, 2},                // h = 1.5 between 2 and 2
      {"ties p90", {2, 8, 2, 2}, 90, 6.2},              // h = 2.7: 2 + 0.7 * 6
      {"negative values", {-1, -3}, 50, -2},
  };
  for (const PercentileCase& c : cases) {
    INFO(c.name);
    const auto got = Percentile(c.values, c.p);
    REQUIRE(got.has_value());
    CHECK(*got == Approx(c.expected).margin(1e-12));
  }
}

TEST_CASE("Percentile of empty input is null", "[stats]") {
  CHECK_FALSE(Percentile({}, 50).has_value());
  CHECK_FALSE(Percentile({}, 0).has_value());
}

TEST_CASE("Percentile Mean", "[stats]") {
  CHECK(*Mean({1, 2, 3, 4}) == Approx(2.5));
  CHECK(*Mean({7}) == Approx(7));
  CHECK_FALSE(Mean({}).has_value());
}

}  // namespace
}  // namespace kvbench::stats
