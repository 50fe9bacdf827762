#pragma once

// Intervals on the tier comparison's deltas: identical reruns of the demo moved the
// CPU_RAM-vs-GPU TTFT p95 delta from -57% to +12%, each printed as one bold signed number. Each
// offload tier's delta on every row measured per request (TTFT mean/p50/p95/p99, TPOT mean,
// requests/s, output tokens/s) gets the 95% interval of the two-stage bootstrap `kvctl diff`
// uses (BootstrapDiff: a tier's repeats, then the virtual users within one), and the tiers'
// values become their repeats pooled, request by request, so the delta shown is the one the
// interval is about. Pure.

#include <map>
#include <string>
#include <vector>

#include "controller/regression/bootstrap_diff.h"
#include "controller/results/comparison.h"
#include "controller/results/scenario_run.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::regression {

// A job's request rows by scenario id (JobRequests::rows).
using RowsByScenario = std::map<std::string, std::vector<v1::RequestRow>>;

// Fills `groups` (results::BuildComparison of `runs`): pooled values, deltas and intervals of the
// rows above, for each offload tier whose scenarios and the GPU tier's all have request rows, and
// each group's interval_note. A tier with fewer than kMinUsersToResample users keeps its values
// and gets no interval.
void AttachDeltaIntervals(const std::vector<results::ScenarioRun>& runs, const RowsByScenario& rows,
                          const DiffOptions& options,
                          std::vector<results::ComparisonGroup>* groups);

// Said when one repeat per tier was run: its intervals show the users' spread, not the runs'.
inline constexpr char kOneRepeatNote[] =
    "one repeat per tier: the intervals cover how the virtual users varied; the run-to-run "
    "spread is unknown (set \"repeats\" to measure it)";

}  // namespace kvbench::regression
