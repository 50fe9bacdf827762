#include "controller/regression/family_wise.h"

#include <catch2/catch.hpp>
#include <vector>

namespace kvbench::regression {
namespace {

// A test with its own verdict and p-values, as BootstrapDiff leaves it.
MetricDiff Test(DiffVerdict verdict, double p_worse, double p_better,
                RegressionMetric metric = RegressionMetric::kTtftP95) {
  MetricDiff test;
  test.metric = metric;
  test.verdict = verdict;
  test.p_worse = p_worse;
  test.p_better = p_better;
  return test;
}

std::vector<MetricDiff*> Pointers(std::vector<MetricDiff>* tests) {
  std::vector<MetricDiff*> pointers;
  for (MetricDiff& test : *tests) pointers.push_back(&test);
  return pointers;
}

TEST_CASE("A per-test regression Holm does not keep reads inconclusive and says why",
          "[regression]") {
  // 48 tests: one regression by its interval with p 0.01 (47 x 0.01 = 0.47 after Holm), one with
  // the smallest p 2,000 resamples give (48 / 2001 = 0.024), an improvement at p 0.0004
  // (0.0192), the rest unremarkable; and one not measured, which is no test.
  std::vector<MetricDiff> tests(48, Test(DiffVerdict::kInconclusive, 0.6, 0.6));
  tests[0] = Test(DiffVerdict::kRegression, 0.01, 0.99);
  tests[1] = Test(DiffVerdict::kRegression, 1.0 / 2001, 1);
  tests[2] = Test(DiffVerdict::kImprovement, 1, 0.0004, RegressionMetric::kCacheHitPct);
  tests.push_back(MetricDiff{});
  const TestFamily family = ControlFamilyWise(Pointers(&tests), DiffOptions{}, "demo");
  CHECK(family.tests == 48);
  CHECK(family.withheld == 1);
  CHECK(family.alpha == Approx(0.05));
  CHECK(tests[0].verdict == DiffVerdict::kInconclusive);
  CHECK(*tests[0].adjusted_p_worse == Approx(0.47));  // second smallest of 48: x 47
  CHECK(tests[0].note ==
        "would be regression by its own 95% interval, but the family-wise control withheld it: "
        "Holm over the family's 48 tests (demo) at α = 0.05 gives adjusted p = 0.47 for a change "
        "beyond the ±3% band");
  CHECK(tests[1].verdict == DiffVerdict::kRegression);
  CHECK(*tests[1].adjusted_p_worse == Approx(48.0 / 2001));
  CHECK(tests[1].note.empty());
  CHECK(tests[2].verdict == DiffVerdict::kImprovement);
  CHECK(*tests[2].adjusted_p_better == Approx(48 * 0.0004));
  CHECK_FALSE(tests[48].adjusted_p_worse.has_value());
}

TEST_CASE("Holm never withholds what the test alone did not give", "[regression]") {
  // A tiny p-value on an inconclusive test (e.g. withheld for want of runs) stays inconclusive,
  // its note untouched; a share's note names percentage points.
  std::vector<MetricDiff> tests = {
      Test(DiffVerdict::kInconclusive, 0.0001, 1),
      Test(DiffVerdict::kRegression, 0.2, 1, RegressionMetric::kCacheHitPct)};
  tests[0].note = "would be regression, but only 1 run(s) show how whole runs vary (3 needed)";
  const TestFamily family = ControlFamilyWise(Pointers(&tests), DiffOptions{}, "two");
  CHECK(tests[0].verdict == DiffVerdict::kInconclusive);
  CHECK(tests[0].note.find("only 1 run(s)") != std::string::npos);
  CHECK(tests[1].verdict == DiffVerdict::kInconclusive);
  CHECK(tests[1].note.find("beyond the ±3 pp band") != std::string::npos);
  CHECK(family.withheld == 1);
}

TEST_CASE("The resamples a family needs", "[regression]") {
  DiffOptions options;                             // 2,000 resamples, 95%
  CHECK(ResamplesForFamily(48, options) == 2000);  // 2 x 48 / 0.05 - 1 = 1,919
  CHECK(ResamplesForFamily(96, options) == 3839);
  CHECK(ResamplesForFamily(0, options) == 2000);
  options.confidence = 0.999;
  CHECK(ResamplesForFamily(1000, options) == kMaxFamilyResamples);
}

}  // namespace
}  // namespace kvbench::regression
