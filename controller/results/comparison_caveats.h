#pragma once

// What a tier comparison's numbers rest on, where it is thin or mixed: said beside
// the numbers, never silently. Pure.

#include <string>
#include <vector>

#include "controller/results/scenario_run.h"

namespace kvbench::results {

// A tier with fewer completed requests (over its repeats) has a p95 that is nearly its largest
// request's, and deltas whose intervals are wide or missing.
inline constexpr int kFewRequests = 20;

// One line per caveat of a comparison group whose tiers ran `tiers` (each tier's repeats):
//  - small sample: a tier completed fewer than kFewRequests requests;
//  - the tiers' hit rates were computed by different methods (HitRateMethod), so their
//    difference mixes a plateau with a before/after average;
//  - the rolling rate window (spec.sampling.rate_window_s, default 300 s) is longer than a
//    replay whose hit rate it gave: the "plateau" is then an average from the replay's start;
//  - vLLM counted the tiers' external queries two ways (EngineMetrics.external_query_counting):
//    their external hit rates have different denominators.
std::vector<std::string> ComparisonCaveats(
    const std::vector<std::vector<const ScenarioRun*>>& tiers);

}  // namespace kvbench::results
