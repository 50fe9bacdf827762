#include "controller/regression/family_wise.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "controller/regression/holm.h"

namespace kvbench::regression {
namespace {

std::string WithheldNote(const MetricDiff& test, double adjusted_p, const TestFamily& family,
                         const std::string& name, const DiffOptions& options) {
  return absl::StrFormat(
      "would be %s by its own %g%% interval, but the family-wise control withheld it: Holm over "
      "the family's %d tests (%s) at α = %g gives adjusted p = %.3g for a change beyond the ±%g%s "
      "band",
      DiffVerdictName(test.verdict), options.confidence * 100, family.tests, name, family.alpha,
      adjusted_p, options.band,
      InfoOf(test.metric).change_kind == ChangeKind::kRelativePct ? "%" : " pp");
}

}  // namespace

TestFamily ControlFamilyWise(const std::vector<MetricDiff*>& tests, const DiffOptions& options,
                             const std::string& family) {
  TestFamily result;
  result.alpha = 1 - options.confidence;
  std::vector<MetricDiff*> measured;
  std::vector<double> worse;
  std::vector<double> better;
  for (MetricDiff* test : tests) {
    if (!test->p_worse || !test->p_better) continue;
    measured.push_back(test);
    worse.push_back(*test->p_worse);
    better.push_back(*test->p_better);
  }
  result.tests = static_cast<int>(measured.size());
  const std::vector<double> adjusted_worse = HolmAdjust(worse);
  const std::vector<double> adjusted_better = HolmAdjust(better);
  for (size_t i = 0; i < measured.size(); ++i) {
    MetricDiff& test = *measured[i];
    test.adjusted_p_worse = adjusted_worse[i];
    test.adjusted_p_better = adjusted_better[i];
    const bool regression = test.verdict == DiffVerdict::kRegression;
    if (!regression && test.verdict != DiffVerdict::kImprovement) continue;
    const double adjusted = regression ? adjusted_worse[i] : adjusted_better[i];
    if (adjusted <= result.alpha) continue;
    test.note = WithheldNote(test, adjusted, result, family, options);
    test.verdict = DiffVerdict::kInconclusive;
    ++result.withheld;
  }
  return result;
}

int ResamplesForFamily(int tests, const DiffOptions& options) {
  const double alpha = 1 - options.confidence;
  if (tests <= 0 || alpha <= 0) return options.resamples;
  const double needed = std::ceil(2.0 * tests / alpha) - 1;
  return std::max(options.resamples,
                  static_cast<int>(std::min<double>(needed, kMaxFamilyResamples)));
}

}  // namespace kvbench::regression
