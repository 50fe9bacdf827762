#include "controller/regression/band_p_values.h"

#include <catch2/catch.hpp>
#include <vector>

#include "controller/regression/bootstrap_diff.h"
#include "tests/unit/controller/regression/synthetic_runs.h"

namespace kvbench::regression {
namespace {

using testing::RunShape;
using testing::SyntheticRows;

TEST_CASE("Band p-values count the resamples on the null's side of each edge", "[regression]") {
  // A latency (lower is better), band 3: worse counts changes <= +3 (4 of 10), better those >=
  // -3 (9 of 10); (k + 1) / (n + 1).
  const std::vector<double> changes = {-5, 0, 2, 3, 4, 8, 10, 12, 15, 20};
  const BandPValues latency = PValuesAgainstBand(changes, 3, /*higher_is_better=*/false);
  CHECK(latency.worse == Approx(5.0 / 11));
  CHECK(latency.better == Approx(10.0 / 11));
  // A throughput (higher is better): the same changes, the directions swapped.
  const BandPValues throughput = PValuesAgainstBand(changes, 3, /*higher_is_better=*/true);
  CHECK(throughput.worse == Approx(10.0 / 11));
  CHECK(throughput.better == Approx(5.0 / 11));
}

TEST_CASE("A clearly shifted sample gives the smallest p-value, no change the largest",
          "[regression]") {
  const std::vector<double> shifted(1999, 10.0);  // every resample +10%, band 3%
  CHECK(PValuesAgainstBand(shifted, 3, false).worse == Approx(1.0 / 2000));
  CHECK(PValuesAgainstBand(shifted, 3, false).better == 1);
  const std::vector<double> unchanged(1999, 0.0);
  CHECK(PValuesAgainstBand(unchanged, 3, false).worse == 1);
  CHECK(PValuesAgainstBand(unchanged, 3, false).better == 1);
  // A change exactly at the edge counts for the null.
  CHECK(PValuesAgainstBand({3.0, 3.0}, 3, false).worse == 1);
  CHECK(PValuesAgainstBand({}, 3, false).worse == 1);
}

const MetricDiff& P95Of(const std::vector<MetricDiff>& diffs) {
  return diffs[static_cast<size_t>(RegressionMetric::kTtftP95)];
}

TEST_CASE("BootstrapDiff's p-values: small for a real shift, large for the same run",
          "[regression]") {
  DiffOptions options;
  options.resamples = 999;
  // Every user 10% slower with no spread: every resample is +10%, so p = 1 / (999 + 1).
  RunShape exact;
  exact.user_spread = 0;
  exact.request_spread = 0;
  RunShape slower = exact;
  slower.ttft_s *= 1.1;
  const auto shifted = BootstrapDiff({GroupByUser("a", SyntheticRows(exact, 1))},
                                     {GroupByUser("b", SyntheticRows(slower, 1))}, options);
  CHECK(*P95Of(shifted).p_worse == Approx(1.0 / 1000));
  CHECK(*P95Of(shifted).p_better == 1);
  // A noisy run 40% slower: far beyond the band.
  RunShape noisy_slower;
  noisy_slower.ttft_s *= 1.4;
  const auto noisy = BootstrapDiff({GroupByUser("a", SyntheticRows({}, 11))},
                                   {GroupByUser("b", SyntheticRows(noisy_slower, 12))}, options);
  CHECK(*P95Of(noisy).p_worse < 0.01);
  // A run against itself: resamples scatter around 0, mostly inside the band.
  const RunSample run = GroupByUser("a", SyntheticRows({}, 5));
  const auto same = BootstrapDiff({run}, {run}, options);
  for (const MetricDiff& diff : same) {
    INFO(InfoOf(diff.metric).key);
    REQUIRE(diff.p_worse.has_value());
    CHECK(*diff.p_worse > 0.2);
    CHECK(*diff.p_better > 0.2);
  }
  // No interval, no p-value: too few users.
  RunShape tiny;
  tiny.users = 3;
  const auto unmeasured = BootstrapDiff({GroupByUser("a", SyntheticRows(tiny, 1))}, {run}, options);
  CHECK_FALSE(P95Of(unmeasured).p_worse.has_value());
}

}  // namespace
}  // namespace kvbench::regression
