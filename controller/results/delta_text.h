#pragma once

// How a tier delta reads wherever it is shown (kvctl's tables, the HTML report): with its
// interval, and as "no clear difference" when the interval holds 0. Pure.

#include <optional>
#include <string>

#include "controller/results/comparison.h"

namespace kvbench::results {

// "-" without a delta; "+1.5%" (or "+0.4 pp") without an interval; "-22.0% [-35.1%, -8.2%]";
// "no clear difference [-20.0%, +9.0%]" when the interval holds 0, never the signed number.
std::string DeltaText(const ComparisonRow& row, const std::optional<double>& delta,
                      const std::optional<DeltaInterval>& interval);

// `row`'s unit as shown, `simulated_prefix` before a time or rate unit (ms, req/s, tok/s) of a
// simulated group ("sim ms" in kvctl's tables, "simulated ms" in the report).
std::string ShownUnit(const ComparisonGroup& group, const ComparisonRow& row,
                      const std::string& simulated_prefix);

// The delta of `row`'s column `column` (its deltas[column] and intervals[column]).
std::string DeltaText(const ComparisonRow& row, size_t column);

}  // namespace kvbench::results
