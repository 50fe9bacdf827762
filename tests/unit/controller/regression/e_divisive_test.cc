#include "controller/regression/e_divisive.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

namespace kvbench::regression {
namespace {

// `n` nightly values around `level` with 2% noise (what a stable benchmark on one machine shows).
std::vector<double> Nights(int n, double level, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0.0, 0.02);
  std::vector<double> values;
  for (int i = 0; i < n; ++i) values.push_back(level * (1 + noise(random)));
  return values;
}

std::vector<double> Concat(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST_CASE("A step in the mean is found at its run", "[regression][change_points]") {
  const std::vector<double> series = Concat(Nights(10, 100, 1), Nights(10, 130, 2));
  const std::vector<ChangePoint> points = FindChangePoints(series);
  REQUIRE(points.size() == 1);
  CHECK(points[0].index == 10);
  CHECK(points[0].p_value <= kDefaultChangePointAlpha);
  CHECK(points[0].mean_before == Approx(100).epsilon(0.03));
  CHECK(points[0].mean_after == Approx(130).epsilon(0.03));
  CHECK(points[0].magnitude_pct == Approx(30).margin(4));
}

TEST_CASE("Two steps are both found", "[regression][change_points]") {
  const std::vector<double> series =
      Concat(Concat(Nights(8, 100, 3), Nights(8, 140, 4)), Nights(8, 100, 5));
  const std::vector<ChangePoint> points = FindChangePoints(series);
  REQUIRE(points.size() == 2);
  CHECK(points[0].index == 8);
  CHECK(points[1].index == 16);
  CHECK(points[1].magnitude_pct < 0);
}

TEST_CASE("Noise alone has no change point", "[regression][change_points]") {
  int false_alarms = 0;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    false_alarms += static_cast<int>(FindChangePoints(Nights(20, 100, 100 + seed)).size());
  }
  CHECK(false_alarms == 0);
}

TEST_CASE("A significant step smaller than the minimum magnitude is not reported",
          "[regression][change_points]") {
  // 100 -> 103 with 0.2% noise: certain, but under 5%.
  std::vector<double> series;
  for (int i = 0; i < 20; ++i) series.push_back((i < 10 ? 100.0 : 103.0) + 0.2 * (i % 2));
  CHECK(FindChangePoints(series).empty());
  ChangePointOptions options;
  options.min_magnitude_pct = 2;
  REQUIRE(FindChangePoints(series, options).size() == 1);
  CHECK(FindChangePoints(series, options)[0].index == 10);
}

TEST_CASE("Six runs cannot show a change at one percent", "[regression][change_points]") {
  // 0 0 0 1 1 1: of the 20 orderings of three ones, two split as cleanly (000111 and 111000), so
  // the permutation p-value is about 0.1 whatever the size of the step.
  CHECK(FindChangePoints({0, 0, 0, 1, 1, 1}).empty());
  ChangePointOptions lenient;
  lenient.alpha = 0.2;
  lenient.min_magnitude_pct = 0;
  const auto points = FindChangePoints({1, 1, 1, 2, 2, 2}, lenient);
  REQUIRE(points.size() == 1);
  CHECK(points[0].index == 3);
  CHECK(points[0].p_value == Approx(0.1).margin(0.05));
  CHECK(points[0].magnitude_pct == Approx(100));
}

TEST_CASE("One wild run at the end is no change point until the level holds",
          "[regression][change_points]") {
  ChangePointOptions lenient;
  lenient.alpha = 0.05;
  // Five nights at 100, then one at 200: the split 3 | 3 is significant by its means alone.
  std::vector<double> series = Nights(5, 100, 11);
  series.push_back(200);
  CHECK(FindChangePoints(series, lenient).empty());
  // Three nights at 200: now it is a level, found where it starts.
  series.push_back(201);
  series.push_back(199);
  const std::vector<ChangePoint> points = FindChangePoints(series, lenient);
  REQUIRE(points.size() == 1);
  CHECK(points[0].index == 5);
}

TEST_CASE("Short series and the seed", "[regression][change_points]") {
  CHECK(FindChangePoints({}).empty());
  CHECK(FindChangePoints({1, 2, 3, 4, 5}).empty());  // < 2 x min_segment
  const std::vector<double> series = Concat(Nights(6, 100, 7), Nights(6, 112, 8));
  ChangePointOptions a;
  a.seed = 3;
  ChangePointOptions b = a;
  const auto first = FindChangePoints(series, a);
  const auto again = FindChangePoints(series, b);
  REQUIRE(first.size() == again.size());
  for (size_t i = 0; i < first.size(); ++i) CHECK(first[i].p_value == again[i].p_value);
}

}  // namespace
}  // namespace kvbench::regression
