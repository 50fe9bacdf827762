#include "controller/regression/diff_verdict.h"

#include <cmath>

namespace kvbench::regression {

std::string DiffVerdictName(DiffVerdict verdict) {
  switch (verdict) {
    case DiffVerdict::kRegression:
      return "regression";
    case DiffVerdict::kImprovement:
      return "improvement";
    case DiffVerdict::kNoChange:
      return "no_change";
    case DiffVerdict::kInconclusive:
      return "inconclusive";
    case DiffVerdict::kNotMeasured:
      return "not_measured";
  }
  return "not_measured";
}

DiffVerdict JudgeChange(double change, double low, double high, double band,
                        bool higher_is_better) {
  if (low >= -band && high <= band) return DiffVerdict::kNoChange;
  const bool significant_up = low > 0;
  const bool significant_down = high < 0;
  if (std::fabs(change) >= band && (significant_up || significant_down)) {
    const bool went_up = significant_up;
    return went_up == higher_is_better ? DiffVerdict::kImprovement : DiffVerdict::kRegression;
  }
  return DiffVerdict::kInconclusive;
}

}  // namespace kvbench::regression
