#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "controller/results/comparison.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::kvctl {

// "comparison c8: invalid" and one indented line per reason.
void PrintVerdict(const v1::Validity& validity, std::ostream& out);

// Per group: the verdict, then a table with one row per metric and, per tier, its value and
// (offload tiers) the delta against the GPU baseline.
void PrintComparison(const std::vector<results::ComparisonGroup>& groups, std::ostream& out);

// The same as JSON: [{comparison_group, concurrency, verdict, reasons, tiers, time_note (null
// unless the times are simulated), baseline, metrics: [{metric, unit, values: {TIER: v}, deltas:
// {TIER: d}, delta_unit}]}]; nulls as null.
nlohmann::ordered_json ComparisonJson(const std::vector<results::ComparisonGroup>& groups);

}  // namespace kvbench::kvctl
