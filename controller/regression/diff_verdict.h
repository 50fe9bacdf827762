#pragma once

// The verdict on one metric's change between two runs, from its point estimate and
// confidence interval and a practical-significance band. Pure.

#include <optional>
#include <string>

namespace kvbench::regression {

enum class DiffVerdict {
  // The interval excludes no change in the bad direction and the change is at least the band: a
  // change both statistically and practically significant (dotnet/performance's auto-filing rule:
  // a significance test and a threshold).
  kRegression,
  kImprovement,  // the same in the good direction
  // The whole interval lies inside the band: any change there is too small to matter.
  kNoChange,
  // Neither: the interval is too wide, or straddles the band's edge.
  kInconclusive,
  // One side has no value (e.g. no cached_tokens reported) or too few users to resample.
  kNotMeasured,
};

// "regression", "improvement", "no_change", "inconclusive", "not_measured".
std::string DiffVerdictName(DiffVerdict verdict);

// `change`, `low`, `high` and `band` share a unit (% or percentage points); band > 0.
DiffVerdict JudgeChange(double change, double low, double high, double band, bool higher_is_better);

}  // namespace kvbench::regression
