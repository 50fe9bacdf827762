#include "controller/regression/holm.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

namespace kvbench::regression {
namespace {

struct HolmCase {
  const char* name;
  std::vector<double> p_values;
  std::vector<double> adjusted;  // by hand: sorted, (m - j + 1) p(j), running maximum, capped at 1
  std::vector<bool> rejected_at_5_percent;
};

TEST_CASE("Holm's adjusted p-values and rejections on textbook families", "[regression]") {
  const std::vector<HolmCase> cases = {
      // The usual worked example (e.g. Wikipedia's "Holm–Bonferroni method"): sorted 0.005,
      // 0.01, 0.03, 0.04 x 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max 0.06. Steps:
      // 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop.
      {"worked example", {0.01, 0.04, 0.03, 0.005}, {0.03, 0.06, 0.06, 0.02}, {1, 0, 0, 1}},
      // Holm rejects more than Bonferroni (0.05/3 = 0.0167 rejects only the first two): 0.01 <=
      // 0.05/3, 0.015 <= 0.05/2, 0.04 <= 0.05/1.
      {"more than Bonferroni", {0.01, 0.015, 0.04}, {0.03, 0.03, 0.04}, {1, 1, 1}},
      // Step-down stops at the first acceptance even if a later one would pass its own bound.
      {"stops", {0.001, 0.5, 0.002}, {0.003, 0.5, 0.004}, {1, 0, 1}},
      {"ties", {0.02, 0.02}, {0.04, 0.04}, {1, 1}},
      {"capped at 1", {0.6, 0.9}, {1, 1}, {0, 0}},
      {"one test is itself", {0.049}, {0.049}, {1}},
      {"none rejected", {0.2, 0.03, 0.04}, {0.2, 0.09, 0.09}, {0, 0, 0}},
      {"empty", {}, {}, {}},
  };
  for (const HolmCase& test : cases) {
    INFO(test.name);
    const std::vector<double> adjusted = HolmAdjust(test.p_values);
    REQUIRE(adjusted.size() == test.adjusted.size());
    for (size_t i = 0; i < adjusted.size(); ++i) CHECK(adjusted[i] == Approx(test.adjusted[i]));
    CHECK(HolmRejects(test.p_values, 0.05) == test.rejected_at_5_percent);
  }
}

TEST_CASE("Holm rejects exactly the hypotheses whose adjusted p-value is at most alpha",
          "[regression]") {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> uniform(0.0, 0.1);
  for (int family = 0; family < 200; ++family) {
    std::vector<double> p(1 + family % 40);
    for (double& value : p) value = uniform(random);
    const std::vector<double> adjusted = HolmAdjust(p);
    const std::vector<bool> rejected = HolmRejects(p, 0.05);
    for (size_t i = 0; i < p.size(); ++i) {
      CHECK(adjusted[i] >= p[i]);
      CHECK(rejected[i] == (adjusted[i] <= 0.05));
    }
  }
}

}  // namespace
}  // namespace kvbench::regression
