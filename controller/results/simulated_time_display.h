#pragma once

// What people are shown of a simulated engine's latency: simulated seconds — what
// the calibrated H200 would take — clearly labelled, never the simulator's own wall clock, which
// runs `sim_time_scale` real seconds per simulated one. result.json keeps both (`latency` as
// observed, `simulated_latency`). Pure.

#include <string>
#include <vector>

#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// True when the result comes from the simulated engine (it carries a sim_time_scale).
bool IsSimulated(const v1::ScenarioResult& result);

// The latency to show: simulated_latency for a simulated result, else latency.
const v1::LatencyMetrics& ShownLatency(const v1::ScenarioResult& result);

// The line that labels shown times: "times in simulated seconds (sim_time_scale 0.05: observed
// × 20)", each distinct scale listed (a job has one); "" when no result is simulated.
std::string SimulatedTimeNote(const std::vector<const v1::ScenarioResult*>& results);

}  // namespace kvbench::results
