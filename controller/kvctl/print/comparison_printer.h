#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "controller/results/comparison.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::kvctl {

// "comparison c8: invalid" and one indented line per reason.
void PrintVerdict(const v1::Validity& validity, std::ostream& out);

// Per group: the verdict, what the intervals cover, then a table with one row per metric and, per
// tier, its value and (offload tiers) the delta against the GPU baseline with its interval ("no
// clear difference [low, high]" when the interval holds 0).
void PrintComparison(const std::vector<results::ComparisonGroup>& groups, std::ostream& out);

// The same as JSON: [{comparison_group, concurrency, verdict, reasons, notes, tiers: [{tier,
// scenario_id (the first), scenario_ids, succeeded (all of them), succeeded_runs}], time_note
// (null unless the times are simulated), baseline, repeats, interval_note, metrics: [{metric,
// unit, delta_unit, higher_is_better, values: {TIER: v}, deltas: {TIER: d}, intervals: {TIER:
// {low, high}}, clear: {TIER: bool}}]}]; nulls as null.
nlohmann::ordered_json ComparisonJson(const std::vector<results::ComparisonGroup>& groups);

}  // namespace kvbench::kvctl
