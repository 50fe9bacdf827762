#pragma once

// One-sided bootstrap p-values of a metric's change against the edges of the
// practical-significance band, from the resampled changes BootstrapDiff draws. The
// null hypotheses are "the change is not beyond the band in the bad direction" (worse) and "not
// beyond it in the good direction" (better): a change inside the band does not matter, so an A/A
// diff is well inside both nulls, and rejecting one says the change is both real and large enough
// to matter. The p-value is the share of resamples on the null's side of the edge with the usual
// +1 correction, (k + 1) / (n + 1) (Davison & Hinkley 1997, §4.4): never 0, so a family-wise
// procedure sees the resolution n resamples have. Pure.

#include <vector>

namespace kvbench::regression {

struct BandPValues {
  double worse = 1;   // against "changed by no more than the band in the bad direction"
  double better = 1;  // against "changed by no more than the band in the good direction"
};

// `resampled_changes`: the change of each resample (any order; % or percentage points, as `band`);
// `band` >= 0; `higher_is_better` says which direction is bad. Worse, for a metric where lower is
// better: k counts the resamples whose change is <= +band; better: those >= -band (ties count for
// the null). Both 1 when there is no resample.
BandPValues PValuesAgainstBand(const std::vector<double>& resampled_changes, double band,
                               bool higher_is_better);

}  // namespace kvbench::regression
