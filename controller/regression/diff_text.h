#pragma once

// A diff's numbers as people read them, the same in `kvctl diff`'s table and the HTML report.

#include <optional>
#include <string>
#include <vector>

#include "controller/regression/bootstrap_diff.h"
#include "controller/regression/family_wise.h"

namespace kvbench::regression {

// The value in the metric's shown unit without the unit: "123.4" (ms), "56.7" (%), "—" for none.
std::string FormatMetricValue(RegressionMetric metric, const std::optional<double>& value);
// "+8.9%", "-2.0 pp", "—".
std::string FormatChange(RegressionMetric metric, const std::optional<double>& change);
// "[+4.1%, +13.2%]", "—".
std::string FormatInterval(const MetricDiff& diff);
// "TTFT p95 (ms)".
std::string MetricHeading(RegressionMetric metric);
// "±3% band (percentage points for shares), 95% intervals from 2000 resamples of virtual users,
// seed 1".
std::string DiffMethodLine(const DiffOptions& options);
// "every metric × 6 scenarios", "TTFT p50, TTFT p95 × 1 scenario": a family of tests in words.
std::string FamilyText(const std::vector<RegressionMetric>& metrics, int scenarios);
// "verdicts controlled family-wise (Holm, α = 0.05): 48 tests (every metric × 6 scenarios), 1
// withheld; each interval is its test's own": one line per family, "" for none.
std::string FamilyWiseLines(const std::vector<TestFamily>& families);

}  // namespace kvbench::regression
