#include "controller/regression/band_p_values.h"

namespace kvbench::regression {

BandPValues PValuesAgainstBand(const std::vector<double>& resampled_changes, double band,
                               bool higher_is_better) {
  BandPValues p;
  if (resampled_changes.empty()) return p;
  // Resamples that do not go up past +band, and that do not go down past -band.
  int not_above = 0;
  int not_below = 0;
  for (double change : resampled_changes) {
    not_above += change <= band ? 1 : 0;
    not_below += change >= -band ? 1 : 0;
  }
  const double n = static_cast<double>(resampled_changes.size());
  const double up = (not_above + 1) / (n + 1);    // evidence that it went up by more than band
  const double down = (not_below + 1) / (n + 1);  // ... down by more than band
  p.worse = higher_is_better ? down : up;
  p.better = higher_is_better ? up : down;
  return p;
}

}  // namespace kvbench::regression
